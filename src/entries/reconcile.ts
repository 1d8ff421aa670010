/** The reconcile action's entry, as dist/reconcile.js is: hands the process to its door. */
import { keepYoungGenerationSmall, runReconcile } from '../index.ts'

keepYoungGenerationSmall()
await runReconcile(process)
