package agents.weather;

import com.google.adk.agents.BaseAgent;
import com.google.adk.agents.LlmAgent;

public class WeatherAgent {
  public static final BaseAgent ROOT_AGENT =
      LlmAgent.builder()
          .name("weather")
          .model("gemini-2.5-flash")
          .instruction("Answer weather questions. Units come from " + System.getenv("WEATHER_UNITS") + ".")
          .build();
}
