/** The reconcile action's entry, as dist/reconcile.js is: hands the process to its door. */
import { keepYoungGenerationSmall, runReconcile } from '../index.ts'

// After the first turn, which sends the main step's create: node:v8 loads then (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runReconcile(process)
