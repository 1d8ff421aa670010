/** The main step's entry, as dist/main.js is: hands the process to its door (runMain). */
import { keepYoungGenerationSmall, runMain } from '../index.ts'

// After the first turn, which sends the main step's create: node:v8 loads then (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runMain(process)
