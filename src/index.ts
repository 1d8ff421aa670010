/**
 * The bundle: both steps' run(), with no side effect on import. The runner
 * starts the step through dist/main.js or dist/post.js, two tiny entries that
 * scripts/build.ts writes next to it, so the post step knows what it is
 * without any saved state (a job cancelled in its first milliseconds saves
 * none, yet still runs the post step). One bundle serves both because the
 * @actions packages dominate its size, and two bundles would carry them twice.
 */
export { run as runMain } from './main.ts'
export { run as runPost } from './post.ts'
