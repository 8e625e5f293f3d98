// The weather desk: a tiny agent serving the API of ADK's launcher (`web -port N api`, the API
// under /api) with the standard library. Each turn calls the forecast tool, then answers.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
)

const appName = "weather_desk"

// The weather service, canned.
var forecasts = map[string]string{"oslo": "snow", "lisbon": "sunny"}

func forecast(city string) map[string]any {
	if sky, ok := forecasts[strings.ToLower(city)]; ok {
		return map[string]any{"city": city, "sky": sky}
	}
	return map[string]any{"error": "no forecast for " + city}
}

func answer(result map[string]any) string {
	switch result["sky"] {
	case "snow":
		return fmt.Sprintf("Tomorrow it snows in %s.", result["city"])
	case nil:
		return fmt.Sprint(result["error"])
	}
	return fmt.Sprintf("Tomorrow it is sunny in %s.", result["city"])
}

type content struct {
	Role  string           `json:"role"`
	Parts []map[string]any `json:"parts"`
}

type event struct {
	Author       string  `json:"author"`
	InvocationID string  `json:"invocationId"`
	Content      content `json:"content"`
}

var cityIn = regexp.MustCompile(`in (\w+)`)

// turn is one invocation: the tool call, its response, the answer.
func turn(message content, invocation string) []event {
	text := ""
	for _, part := range message.Parts {
		if t, ok := part["text"].(string); ok {
			text += t
		}
	}
	city := ""
	if m := cityIn.FindStringSubmatch(text); m != nil {
		city = m[1]
	}
	args := map[string]any{"city": city}
	result := forecast(city)
	call := map[string]any{"functionCall": map[string]any{"id": "call-1", "name": "forecast", "args": args}}
	response := map[string]any{"functionResponse": map[string]any{"id": "call-1", "name": "forecast", "response": result}}
	return []event{
		{appName, invocation, content{"model", []map[string]any{call}}},
		{appName, invocation, content{"user", []map[string]any{response}}},
		{appName, invocation, content{"model", []map[string]any{{"text": answer(result)}}}},
	}
}

type session struct {
	ID      string         `json:"id"`
	AppName string         `json:"appName"`
	UserID  string         `json:"userId"`
	State   map[string]any `json:"state"`
	Events  []event        `json:"events"`
}

type server struct {
	mu       sync.Mutex
	sessions map[string]*session
	turns    int
}

func reply(w http.ResponseWriter, value any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(value)
}

// sessions: POST /api/apps/{app}/users/{user}/sessions[/{id}], GET .../sessions/{id}.
func (s *server) sessionsHandler(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/apps/"), "/")
	if len(parts) < 4 || parts[0] != appName || parts[1] != "users" || parts[3] != "sessions" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := ""
	if len(parts) > 4 {
		id = parts[4]
	}
	if r.Method == http.MethodGet {
		if found, ok := s.sessions[id]; ok {
			reply(w, found)
			return
		}
		http.NotFound(w, r)
		return
	}
	var body struct {
		SessionID string         `json:"sessionId"`
		State     map[string]any `json:"state"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	if id == "" {
		id = body.SessionID
	}
	created := &session{ID: id, AppName: appName, UserID: parts[2], State: body.State, Events: []event{}}
	s.sessions[id] = created
	reply(w, created)
}

func (s *server) run(w http.ResponseWriter, r *http.Request) {
	var body struct {
		SessionID  string  `json:"sessionId"`
		NewMessage content `json:"newMessage"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found, ok := s.sessions[body.SessionID]
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.turns++
	events := turn(body.NewMessage, fmt.Sprintf("e-%d", s.turns))
	found.Events = append(found.Events, events...)
	reply(w, events)
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "web" {
		log.Fatal("usage: weatherdesk web -port N api")
	}
	flags := flag.NewFlagSet("web", flag.ExitOnError)
	port := flags.Int("port", 8080, "the port")
	flags.Parse(os.Args[2:])
	s := &server{sessions: map[string]*session{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/list-apps", func(w http.ResponseWriter, r *http.Request) { reply(w, []string{appName}) })
	mux.HandleFunc("/api/apps/", s.sessionsHandler)
	mux.HandleFunc("/api/run", s.run)
	log.Printf("weather desk: the API on 127.0.0.1:%d/api", *port)
	log.Fatal(http.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), mux))
}
