/**
 * The bundle's entry, for both the main and the post step. One bundle serves
 * both because the @actions packages dominate its size and two bundles would
 * carry them twice; the main step's saved state tells the post step apart, as
 * in actions/checkout.
 */
import { run as runMain } from './main.ts'
import { run as runPost } from './post.ts'
import { isPostStep, markMainStepStarted } from './state.ts'

if (isPostStep()) {
  await runPost()
} else {
  markMainStepStarted()
  await runMain()
}
