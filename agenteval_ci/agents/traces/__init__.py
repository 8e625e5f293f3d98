"""Agent turns from the outside: what a remote agent's reply or its OpenTelemetry spans say it
did (tool calls, their responses, model usage), as the same Invocation an in-process run records.
Pure: parsing and mapping only; the OTLP receiver lives with the remote agents."""
