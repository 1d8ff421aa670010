import { runPost } from './index.js'

await runPost()
