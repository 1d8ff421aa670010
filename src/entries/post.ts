/** The post step's entry, as dist/post.js is: hands the process to its door (runPost). */
import { keepYoungGenerationSmall, runPost } from '../index.ts'

// After the step's first turn, so that node:v8 loads then, not in its start (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runPost(process)
