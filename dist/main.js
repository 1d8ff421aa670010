import { runMain } from './index.js'

await runMain()
