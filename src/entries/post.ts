/** The post step's entry, as dist/post.js is: hands the process to its door (runPost). */
import { runPost } from '../index.ts'

await runPost(process)
