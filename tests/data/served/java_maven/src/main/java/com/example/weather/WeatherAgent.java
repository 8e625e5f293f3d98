package com.example.weather;

import com.google.adk.agents.BaseAgent;
import com.google.adk.agents.LlmAgent;
import com.google.adk.tools.Annotations.Schema;
import com.google.adk.tools.FunctionTool;
import java.util.Map;

public class WeatherAgent {
  public static final BaseAgent ROOT_AGENT =
      LlmAgent.builder()
          .name("weather_agent")
          .model("gemini-2.0-flash")
          .instruction("Answer weather questions with the forecast tool.")
          .tools(FunctionTool.create(WeatherAgent.class, "forecast"))
          .build();

  public static Map<String, String> forecast(@Schema(name = "city") String city) {
    return Map.of("city", city, "sky", "sunny");
  }
}
