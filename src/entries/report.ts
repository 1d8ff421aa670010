/** The report action's entry, as dist/report.js is: hands the process to its door. */
import { keepYoungGenerationSmall, runReport } from '../index.ts'

// After the first turn, which sends the main step's create: node:v8 loads then (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runReport(process)
