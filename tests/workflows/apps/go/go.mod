module example.com/weatherdesk

go 1.19

// The SDK the app is written for. ADK for Go cannot be fetched where the workflow tests run (no
// Go module proxy), so main.go serves the API of ADK's launcher (`web -port N api`) itself and
// imports nothing of it: Go builds without fetching a requirement no package imports.
require google.golang.org/adk v0.1.0
