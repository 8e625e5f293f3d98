import {FunctionTool, LlmAgent} from '@google/adk';
import {z} from 'zod';

const forecast = new FunctionTool({
  name: 'forecast',
  description: "Tomorrow's weather in a city.",
  parameters: z.object({city: z.string()}),
  execute: ({city}) => ({city, sky: city.toLowerCase() === 'oslo' ? 'snow' : 'sunny'}),
});

export const rootAgent = new LlmAgent({
  name: 'weather',
  model: 'gemini-2.5-flash',
  instruction: 'Answer weather questions with the forecast tool.',
  tools: [forecast],
});
