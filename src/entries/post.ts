/** The post step's entry, as dist/post.js is: hands the process to its door (runPost). */
import { keepYoungGenerationSmall, runPost } from '../index.ts'

keepYoungGenerationSmall()
await runPost(process)
