import { run } from '../post.ts'

await run()
