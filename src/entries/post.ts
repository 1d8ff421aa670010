import { runPost } from '../index.ts'

await runPost(process)
