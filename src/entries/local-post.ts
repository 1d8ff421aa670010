/** `@github/local-action`'s entry for the post step (`--post`): see local-main.ts. */
import { runPost } from '../index.ts'

export const run = (): Promise<void> => runPost(process)
