module example.com/weather

go 1.24

require (
	google.golang.org/adk v0.3.0
	google.golang.org/genai v1.36.0
)
