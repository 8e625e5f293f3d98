import {FunctionTool, LlmAgent} from '@google/adk';
import {z} from 'zod';

// The weather service, canned.
const FORECASTS: Record<string, string> = {oslo: 'snow', lisbon: 'sunny'};

const forecast = new FunctionTool({
  name: 'forecast',
  description: "Tomorrow's weather in a city.",
  parameters: z.object({city: z.string().describe('The city')}),
  execute: ({city}) => {
    const sky = FORECASTS[city.toLowerCase()];
    return sky ? {city, sky} : {error: `no forecast for ${city}`};
  },
});

export const rootAgent = new LlmAgent({
  name: 'weather_desk',
  model: 'gemini-2.5-flash',
  instruction: 'You answer questions about the weather with the forecast tool.',
  tools: [forecast],
});
