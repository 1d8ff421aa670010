/** The post step's entry, as dist/post.js is: hands the process to its door (runPost). */
import { keepYoungGenerationSmall, runPost } from '../index.ts'

// After the first turn, which sends the main step's create: node:v8 loads then (src/heap.ts).
setImmediate(keepYoungGenerationSmall)
await runPost(process)
