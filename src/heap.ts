import { setFlagsFromString } from 'node:v8'

/**
 * Keeps V8's young generation at the size it has when an entry starts (a few MB), instead of
 * letting it double up to 64 MB a semi-space (Node 24's V8; Node 20's stops at 16). A step
 * keeps its runs in tens of MB, but a campaign's thousand runs allocate through that space
 * fast enough that V8 grew it at each burst, and the space alone took the step's peak memory
 * from about 110 MB to 175–210 MB (BENCHMARKS, issue 49). Held, the step spends about 6% more
 * CPU in collections. V8 reads the growth factor at each growth, so setting it after start
 * takes effect (a flag V8 reads only at start would not, and none is set here); it is the
 * entries' to call, as a setting of the whole process, once the step's first turn is over: that
 * turn sends the main step's create, and loading node:v8 (which the bundle requires at this
 * call, scripts/build/lazy-builtins.ts) took a start about 5 ms before it (issue 46).
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
}
