/**
 * The bundle: both steps' run(), and the reconcile action's, with no side
 * effect on import. The runner starts the step through dist/main.js or
 * dist/post.js (or dist/reconcile.js), tiny entries that scripts/build.ts
 * writes next to it, so the post step knows what it is without any saved state
 * (a job cancelled in its first milliseconds saves none, yet still runs the
 * post step). One bundle serves all because the @actions packages dominate its
 * size, and several bundles would carry them several times.
 */
export { run as runMain } from './main.ts'
export { run as runPost } from './post.ts'
export { run as runReconcile } from './reconcile/main.ts'
export { runCli } from './cli.ts'
