/** The reconcile action's entry, as dist/reconcile.js is: hands the process to its door. */
import { keepYoungGenerationSmall, runReconcile } from '../index.ts'

// After the step's first turn, so that node:v8 loads then, not in its start (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runReconcile(process)
