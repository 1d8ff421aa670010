/** The report action's entry, as dist/report.js is: hands the process to its door. */
import { keepYoungGenerationSmall, runReport } from '../index.ts'

// After the step's first turn, so that node:v8 loads then, not in its start (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runReport(process)
