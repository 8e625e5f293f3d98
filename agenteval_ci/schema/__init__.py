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
    ToolTrajectoryCriterion,
    UserSimulatorConfig,
)
from .eval_set import (
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
    Status,
    TokenCounts,
)
