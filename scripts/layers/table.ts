/**
 * The one table of src/'s layers, top to bottom: eslint.config.js makes its import rules from
 * it, `npm run docs` writes CONTRIBUTING.md's layout from it, and test/layers.test.ts holds
 * both to it. A room is a folder (`run/`) or a file at the top of src/ (`state.ts`); a layer is
 * one or more floors of rooms. A file may import its own room, or a room on a lower floor:
 * never a room beside it (a peer), nor one above. Every entry of src/ sits in one room.
 */

/** One room of src/: a folder (ending in `/`) or a file at the top, and what it holds. */
export interface Room {
  readonly path: string
  readonly holds: string
}

/** One layer: its name, what it is for, and its floors, top to bottom (rooms side by side). */
export interface Layer {
  readonly name: string
  readonly about: string
  readonly floors: readonly (readonly Room[])[]
}

export const LAYERS: readonly Layer[] = [
  {
    name: 'doors',
    about: 'read the world once (the process an entry hands in) and hand it down with a port',
    floors: [
      [
        {
          path: 'entries/',
          holds: 'the only files that name `process`, each handing it to a door',
        },
      ],
      [
        {
          path: 'index.ts',
          holds: "the bundle: every action's entry, one runInActions, and the command",
        },
      ],
      [{ path: 'cli/', holds: 'the command line (`cloud-agent-run`) and its subcommands' }],
      [{ path: 'runner.ts', holds: "the Action's door: the runner's world and its StepIo" }],
    ],
  },
  {
    name: 'steps',
    about: "each action's outline, bringing the engine and the forges together",
    floors: [
      [
        { path: 'step/', holds: "the main and post steps, their beats and each shape's surfaces" },
        { path: 'reconcile/', holds: 'the reconcile action: its passes over GitHub and GitLab' },
        { path: 'report/', holds: 'the report action (the ledger) and `cloud-agent-run report`' },
      ],
    ],
  },
  {
    name: 'engine and forges',
    about: 'peers that never import each other: what two share moves down',
    floors: [
      [
        { path: 'run/', holds: 'one engine for one run and a set: create, wait, steer, cancel' },
        { path: 'github/', holds: 'GitHub: the comment, status, check run, review and approval' },
        { path: 'gitlab/', holds: "GitLab: the merge request's note and its steer" },
        { path: 'summary/', holds: 'the job summary, the outputs and the annotations' },
      ],
    ],
  },
  {
    name: 'reading and ports',
    about: 'the inputs read and checked, and the ports a door hands down',
    floors: [
      [{ path: 'inputs/', holds: 'every input read and checked, into typed settings' }],
      [
        { path: 'service.ts', holds: 'the one place a step builds the API client' },
        { path: 'state.ts', holds: "the action's saved state, its keys known here alone" },
      ],
      [{ path: 'step-io.ts', holds: "StepIo, a step's port to its door" }],
    ],
  },
  {
    name: 'model',
    about: 'pure rules',
    floors: [[{ path: 'model/', holds: "the run's rules and the step's outcome, pure" }]],
  },
  {
    name: 'agent',
    about: "the agent's work",
    floors: [[{ path: 'agent/', holds: "the agent's answer, progress, artifacts and cost" }]],
  },
  {
    name: 'api',
    about: 'the wire',
    floors: [[{ path: 'api/', holds: 'the Cloud Agent Runs API: client, transport, wire types' }]],
  },
  {
    name: 'leaves',
    about: 'import nothing above them',
    floors: [
      [
        { path: 'door-words.ts', holds: "a door's own words" },
        { path: 'world.ts', holds: 'World: where a step runs' },
        { path: 'log.ts', holds: 'Log, the one logger type' },
        { path: 'input-error.ts', holds: 'InputError, the error that names a bad input' },
        { path: 'timing.ts', holds: 'every deadline, grace and poll bound' },
        { path: 'version.ts', holds: 'the User-Agent' },
        { path: 'at-most.ts', holds: 'work over a list, a few items at a time' },
        { path: 'heap.ts', holds: "V8's young generation, kept at its size by the entries" },
      ],
      [{ path: 'text/', holds: 'Markdown, escaping, wording of numbers, safe log text' }],
    ],
  },
]

/** A room with its place: the index of its floor, counted from the top over every layer. */
export interface PlacedRoom extends Room {
  readonly layer: string
  readonly floor: number
}

/** Every room of the table with its floor, top first. */
export function placedRooms(layers: readonly Layer[] = LAYERS): PlacedRoom[] {
  let floor = 0
  const placed: PlacedRoom[] = []
  for (const layer of layers) {
    for (const rooms of layer.floors) {
      for (const room of rooms) placed.push({ ...room, layer: layer.name, floor })
      floor += 1
    }
  }
  return placed
}

/**
 * What a file of `room` may not import, as the specifiers it would write: every other room on
 * its floor or above. A folder's files write `../x/…`; a file at the top writes `./x/…`.
 */
export function forbiddenFrom(room: PlacedRoom, rooms: readonly PlacedRoom[] = placedRooms()) {
  const prefix = room.path.endsWith('/') ? '../' : './'
  return rooms
    .filter((other) => other.floor <= room.floor && other.path !== room.path)
    .map((other) =>
      other.path.endsWith('/') ? `${prefix}${other.path}*` : `${prefix}${other.path}`,
    )
}
