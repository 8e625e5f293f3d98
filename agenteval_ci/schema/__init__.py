"""Pydantic models of every file agenteval reads or writes."""

from .content import Content, FunctionCall, FunctionResponse, Part, UsageMetadata, text_of
from .eval_config import (
    DEFAULT_EVAL_CONFIG,
    BaseCriterion,
    EvalConfig,
    HallucinationsCriterion,
    JudgeModelOptions,
    LlmAsAJudgeCriterion,
    LlmBackedUserSimulatorCriterion,
    MatchType,
    RubricsBasedCriterion,
    SafetyCriterion,
    SingleToolUseCriterion,
    ToolArgsCriterion,
    ToolTrajectoryCriterion,
    UserSimulatorConfig,
)
from .eval_set import (
    AgentDetails,
    AppDetails,
    ConversationScenario,
    ConversationScenarios,
    EvalCase,
    EvalSet,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Rubric,
    RubricContent,
    SessionInput,
)
from .results import (
    SCHEMA_VERSION,
    AdaptiveInfo,
    AlignedCall,
    ArgumentCheck,
    CaseResult,
    InvocationScore,
    JudgeUsage,
    MetricResult,
    MetricRun,
    Results,
    RubricVerdict,
    RunRecord,
    RunStats,
    ShardInfo,
    TokenCounts,
)
from .vocabulary import BY_RANK, OUTCOMES, FailOn, Outcome, Status, Verdict
