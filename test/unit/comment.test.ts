import { describe, expect, it } from 'vitest'
import type { RunItem } from '../../src/api/types.ts'
import { renderGitHubMarkdown } from '../../scripts/render/github-markdown.ts'
import {
  MAX_COMMENT_CHARS,
  commentOutcomeOf,
  composeComment,
  partsOf,
  renderComment,
  spliceComment,
  staleHeadNote,
  type CommentOutcome,
} from '../../src/github/comment.ts'
import { MAX_RUNS, historyLine, mergeRuns, type RunEntry } from '../../src/model/key-history.ts'
import { parseMarker, recordOf, renderMarker, type Marker } from '../../src/github/run-marker.ts'
import { codeSpan } from '../../src/text/markdown.ts'

const record = (runId: string, startedAt: string, patch: Partial<RunEntry> = {}): RunEntry => ({
  runId,
  state: 'SUCCEEDED',
  startedAt,
  ...patch,
})

const marker: Marker = {
  runId: 'run_abc',
  step: 'review/agent',
  key: 'Agent review/review',
  runs: [record('run_abc', '2026-11-23T12:00:00.000Z', { state: 'INPROGRESS' })],
}

describe('the comment marker', () => {
  it('round-trips through a rendered comment', () => {
    const body = renderComment({ run_id: 'run_abc', state: 'INPROGRESS' }, marker)
    expect(parseMarker(body)).toEqual({ ...marker, name: undefined, reply: undefined })
  })

  it('keeps name, reply and the links of each run', () => {
    const full: Marker = {
      ...marker,
      name: 'pr-7',
      reply: true,
      runs: [
        record('run_abc', '2026-11-23T12:00:00.000Z', {
          sessionLink: 'https://app.example.test/s/abc',
          workflowRun: 'https://github.com/o/r/actions/runs/1/attempts/1',
        }),
      ],
    }
    expect(parseMarker(renderMarker(full))).toEqual(full)
  })

  it('is an HTML comment, invisible in the rendered thread', () => {
    expect(renderMarker(marker)).toMatch(/^<!-- cloud-agent-run: \{.*\} -->$/)
  })

  it('still reads the markers written before keys and history existed', () => {
    expect(
      parseMarker('<!-- cloud-agent-run: {"run_id":"run_old","step":"review/agent"} -->\nOld'),
    ).toEqual({
      runId: 'run_old',
      step: 'review/agent',
      key: undefined,
      name: undefined,
      reply: undefined,
      runs: [],
    })
  })

  it('rejects markers that are not ours or carry an unsafe run ID', () => {
    expect(parseMarker('no marker here')).toBeUndefined()
    expect(parseMarker('<!-- cloud-agent-run: {not json} -->')).toBeUndefined()
    expect(parseMarker('<!-- cloud-agent-run: {"run_id":"../../admin"} -->')).toBeUndefined()
    expect(parseMarker('<!-- cloud-agent-run: {"run_id":42} -->')).toBeUndefined()
  })

  it('drops run records that are malformed, and links that are not http(s)', () => {
    const parsed = parseMarker(
      `<!-- cloud-agent-run: ${JSON.stringify({
        run_id: 'run_a',
        runs: [
          { run_id: 'run_a', state: 'SUCCEEDED', started_at: '2026-11-23T12:00:00Z' },
          { run_id: 'run_b', state: 'lower', started_at: '2026-11-23T12:00:00Z' },
          { run_id: 'run_c', state: 'FAILED', started_at: 'yesterday' },
          {
            run_id: 'run_d',
            state: 'FAILED',
            started_at: '2026-11-23T11:00:00Z',
            session: 'javascript:alert(1)',
          },
        ],
      })} -->`,
    )
    expect(parsed?.runs.map((r) => r.runId)).toEqual(['run_a', 'run_d'])
    expect(parsed?.runs[1]?.sessionLink).toBeUndefined()
  })

  it('cannot be closed or forged by what it carries', () => {
    const evil: Marker = {
      ...marker,
      name: '--> <!-- cloud-agent-run: {"run_id":"run_evil"} -->',
    }
    const rendered = renderMarker(evil)
    expect(rendered.match(/-->/g)).toHaveLength(1)
    expect(parseMarker(rendered)?.name).toBe(evil.name)
  })
})

describe('mergeRuns', () => {
  it('puts the run in, newest first, replacing its older record', () => {
    const runs = [record('run_b', '2026-11-23T11:00:00Z'), record('run_a', '2026-11-23T10:00:00Z')]
    expect(mergeRuns(runs, record('run_c', '2026-11-23T12:00:00Z')).map((r) => r.runId)).toEqual([
      'run_c',
      'run_b',
      'run_a',
    ])
    const updated = mergeRuns(runs, record('run_a', '2026-11-23T10:00:00Z', { state: 'FAILED' }))
    expect(updated.map((r) => [r.runId, r.state])).toEqual([
      ['run_b', 'SUCCEEDED'],
      ['run_a', 'FAILED'],
    ])
  })

  it('an older run written late stays in the history', () => {
    const runs = [record('run_new', '2026-11-23T12:00:00Z', { state: 'INPROGRESS' })]
    const merged = mergeRuns(
      runs,
      record('run_old', '2026-11-23T11:00:00Z', { state: 'CANCELLED' }),
    )
    expect(merged.map((r) => r.runId)).toEqual(['run_new', 'run_old'])
  })

  it('keeps the time a run was first shown, so a late writer never moves it above a newer run', () => {
    const runs = [
      record('run_new', '2026-11-23T12:00:00Z', { state: 'INPROGRESS' }),
      record('run_old', '2026-11-23T11:00:00Z', { state: 'QUEUED', outcome: 'started' }),
    ]
    // A reconcile pass shows the older, detached run's end an hour later.
    const merged = mergeRuns(
      runs,
      record('run_old', '2026-11-23T13:00:00Z', { state: 'SUCCEEDED', outcome: 'succeeded' }),
    )
    expect(merged.map((r) => [r.runId, r.state, r.startedAt])).toEqual([
      ['run_new', 'INPROGRESS', '2026-11-23T12:00:00Z'],
      ['run_old', 'SUCCEEDED', '2026-11-23T11:00:00Z'],
    ])
  })

  it(`keeps at most ${MAX_RUNS} runs`, () => {
    let runs: RunEntry[] = []
    for (let i = 0; i < MAX_RUNS + 5; i += 1) {
      runs = mergeRuns(runs, record(`run_${i}`, new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()))
    }
    expect(runs).toHaveLength(MAX_RUNS)
    expect(runs[0]?.runId).toBe(`run_${MAX_RUNS + 4}`)
  })
})

describe('renderComment', () => {
  const run = (patch: Partial<RunItem>): RunItem => ({
    run_id: 'run_abc',
    state: 'QUEUED',
    ...patch,
  })

  it('says queued, in progress, then the outcome', () => {
    expect(renderComment(run({ state: 'QUEUED' }), marker)).toContain(
      '### ⏳ Run `run_abc`\n\n**Queued**',
    )
    expect(renderComment(run({ state: 'INPROGRESS' }), marker)).toContain('**In progress**')
    expect(renderComment(run({ state: 'SUCCEEDED' }), marker)).toContain(
      '### ✅ Run `run_abc`\n\n**Succeeded**',
    )
    expect(renderComment(run({ state: 'FAILED' }), marker)).toContain('**Failed**')
    expect(renderComment(run({ state: 'BLOCKED' }), marker)).toContain(
      '**Blocked: waiting for a person**',
    )
  })

  it('links the session and the workflow run, and quotes the status message of a failure, escaped', () => {
    const body = renderComment(
      run({
        state: 'FAILED',
        session_link: 'https://app.example.test/s/1',
        status_message: { message: 'Build broke <script>alert(1)</script>' },
      }),
      marker,
      { workflowRun: 'https://github.com/o/r/actions/runs/1/attempts/2' },
    )
    expect(body).toContain(
      '[Session](https://app.example.test/s/1) · [Workflow run](https://github.com/o/r/actions/runs/1/attempts/2) · Run `run_abc`',
    )
    expect(body).toContain('> Build broke &#60;script&#62;')
    expect(body).not.toContain('<script>')
  })

  it('cannot be made to forge a second marker through API text', () => {
    const body = renderComment(
      run({ title: '<!-- cloud-agent-run: {"run_id":"run_evil"} -->' }),
      marker,
    )
    expect(parseMarker(body)?.runId).toBe('run_abc')
    expect(body.match(/<!--/g)).toHaveLength(1)
  })

  it('collapses the earlier runs into a history, one line each', () => {
    const withHistory: Marker = {
      ...marker,
      runs: [
        record('run_abc', '2026-11-23T12:00:00Z', { state: 'INPROGRESS' }),
        record('run_prev', '2026-11-23T11:00:00Z', {
          state: 'CANCELLED',
          sessionLink: 'https://app.example.test/s/prev',
        }),
        record('run_first', '2026-11-23T10:00:00Z', { state: 'FAILED' }),
      ],
    }
    const body = renderComment(run({ state: 'INPROGRESS' }), withHistory)
    expect(body).toMatch(
      /<details><summary>Earlier runs \(2\)<\/summary>\n\n- ⛔ cancelled · run `run_prev` · \[session\]\(https:\/\/app\.example\.test\/s\/prev\) · started 2026-11-23 11:00 UTC\n- ❌ failed · run `run_first` · started 2026-11-23 10:00 UTC\n\n<\/details>$/,
    )
    expect(renderComment(run({ state: 'INPROGRESS' }), marker)).not.toContain('<details>')
  })

  it('shows a note, and slots a headline and a body into place', () => {
    const note = staleHeadNote('a'.repeat(40), 'b'.repeat(40)) ?? ''
    const parts = partsOf(
      run({ state: 'SUCCEEDED', title: 'Review' }),
      { runs: [], sets: [] },
      { notes: [note] },
    )
    const body = composeComment(marker, {
      ...parts,
      headline: '### ✅ Review',
      body: 'The agent said: all good.',
    })
    const [first, ...rest] = body.split('\n\n')
    expect(first?.split('\n')[1]).toBe('### ✅ Review')
    expect(rest).toEqual(['**Succeeded**', 'Run `run_abc`', 'The agent said: all good.', note])
  })
})

describe('spliceComment', () => {
  it('replaces the marker and the history, keeping the newer run as it was shown', () => {
    const newer: Marker = {
      ...marker,
      runId: 'run_new',
      runs: [record('run_new', '2026-11-23T12:00:00Z', { state: 'INPROGRESS' })],
    }
    const shown = renderComment({ run_id: 'run_new', state: 'INPROGRESS', title: 'Newer' }, newer)
    const withOld: Marker = {
      ...newer,
      runs: [...newer.runs, record('run_old', '2026-11-23T11:00:00Z', { state: 'CANCELLED' })],
    }
    const spliced = spliceComment(shown, withOld)
    expect(parseMarker(spliced)?.runs.map((r) => r.runId)).toEqual(['run_new', 'run_old'])
    expect(spliced).toContain('### ⏳ Newer')
    expect(spliced).toContain('Earlier runs (1)')
    const again = spliceComment(spliced, withOld)
    expect(again).toBe(spliced)
  })
})

describe('small parts', () => {
  it('historyLine escapes what it shows', () => {
    expect(historyLine(record('run_x', '2026-11-23T12:00:00Z', { state: 'WEIRD_STATE' }))).toBe(
      '- ⏳ weird_state · run `run_x` · started 2026-11-23 12:00 UTC',
    )
  })

  it('staleHeadNote speaks only of real, different SHAs', () => {
    expect(staleHeadNote('a'.repeat(40), 'b'.repeat(40))).toBe(
      '> [!NOTE]\n> This result is for commit `aaaaaaa`; the pull request has since moved on to `bbbbbbb`.',
    )
    expect(staleHeadNote('a'.repeat(40), 'a'.repeat(40))).toBeUndefined()
    expect(staleHeadNote('`rm -rf`', 'b'.repeat(40))).toBeUndefined()
  })
})

describe('the comment, as GitHub renders it', () => {
  const ended = (state: string, patch: Partial<RunItem> = {}): RunItem => ({
    run_id: 'run_abc',
    state,
    title: 'Review pull request #7',
    session_link: 'https://app.example.test/s/abc',
    ...patch,
  })
  const finished = (run: RunItem, supersededBy?: string) =>
    commentOutcomeOf({ kind: 'finished', run, elapsedMs: 65_000, supersededBy }, false)
  const render = (run: RunItem, outcome?: CommentOutcome, answer?: string) =>
    renderComment(run, marker, { outcome, answer })

  it('heads with the icon and the title, else the run ID', () => {
    expect(renderGitHubMarkdown(render(ended('SUCCEEDED')))).toContain(
      '<h3>✅ Review pull request #7</h3>',
    )
    expect(render(ended('SUCCEEDED', { title: '  ' }))).toContain('\n### ✅ Run `run_abc`\n')
  })

  it('says why it ended, in plain words, for each way a step ends', () => {
    const cancelled = ended('CANCELLED')
    const failed = ended('FAILED', { status_message: { message: 'Tests fail' } })
    const cases: Array<[CommentOutcome, RegExp, RunItem?]> = [
      [finished(ended('SUCCEEDED')), /\*\*Succeeded\*\*/],
      [finished(failed), /\*\*Failed\*\*[^\n]*\n\n[^\n]*\n\n> Tests fail/, failed],
      [
        commentOutcomeOf(
          {
            kind: 'timed-out',
            run: cancelled,
            stateAtTimeout: 'INPROGRESS',
            elapsedMs: 1_800_000,
            timeoutMs: 1_800_000,
            cancel: { kind: 'cancelled' },
          },
          false,
        ),
        /\*\*Timed out after 30m 0s\*\*[\s\S]*still INPROGRESS when the `timeout` input \(30m 0s\) ran out\. The action cancelled it\./,
      ],
      [
        commentOutcomeOf({ kind: 'interrupted', run: cancelled }, false),
        /\*\*Interrupted: the workflow was cancelled\*\*/,
      ],
      [finished(cancelled, 'run_newer'), /\*\*Superseded by a newer run\*\* \(run `run_newer`\)/],
      [finished(cancelled), /\*\*Cancelled elsewhere\*\*[\s\S]*outside this step/],
      [
        commentOutcomeOf(
          {
            kind: 'over-budget',
            run: cancelled,
            cost: { credits: 120.5, usd: undefined },
            cap: { amount: { value: 100, unit: 'credits' }, input: 'max_credits' },
            elapsedMs: 1000,
            cancel: { kind: 'cancelled' },
          },
          false,
        ),
        /\*\*Over budget: 120\.5 credits, over the cap of 100 credits\*\*/,
      ],
    ]
    for (const [outcome, words, run] of cases) {
      const shown =
        run ?? (outcome.ending.kind === 'finished' ? ended(outcome.ending.state) : cancelled)
      expect(render(shown, outcome)).toMatch(words)
    }
  })

  it('says what a BLOCKED run waits for and how to answer it', () => {
    const run = ended('BLOCKED')
    const body = render(
      run,
      commentOutcomeOf(
        { kind: 'blocked', run, passes: false, question: 'Which database?', elapsedMs: 1 },
        true,
      ),
    )
    expect(body).toContain('**Blocked: waiting for a person**')
    expect(body).toContain('answer in the [session](https://app.example.test/s/abc)')
    expect(body).toContain('reply with a comment here; continue_run passes it on')
    expect(body).toContain('<details open><summary>What it waits for</summary>\n\nWhich database?')
    // While the step waits on a BLOCKED run, the status message says what for.
    expect(render(ended('BLOCKED', { status_message: { message: 'Pick one' } }))).toContain(
      'Pick one',
    )
  })

  it('shows the duration, the credits and the pull request the agent opened', () => {
    const run = ended('SUCCEEDED', {
      run_time: 'PT4M12S',
      request_usage: { compute_cost: 3.5, inference_cost: 41.25 },
      artifacts: [
        {
          artifact_type: 'PULL_REQUEST',
          created_at: '2026-01-01T00:00:00Z',
          data: { url: 'https://github.com/octo-org/app/pull/8', branch: 'agent/fix' },
        },
      ],
    })
    const body = renderComment(run, marker, {
      outcome: finished(run),
      workflowRun: 'https://github.com/o/r/actions/runs/1/attempts/2',
    })
    expect(body).toContain('**Succeeded** · ⏱ 4m 12s · 44.75 credits')
    const html = renderGitHubMarkdown(body)
    expect(html).toContain('<a href="https://github.com/octo-org/app/pull/8">octo-org/app#8</a>')
    expect(html).toContain('<a href="https://github.com/o/r/actions/runs/1/attempts/2">')
    // While the run works, no figures: they are not final.
    expect(render(ended('INPROGRESS', { run_time: 'PT1M' }))).not.toContain('⏱')
  })

  it('keeps a URL in a status message one intact link (no entity swallowed into it)', () => {
    const url = 'https://docs.example.test/envs(setup)?a=1&b=x_y'
    const run = ended('FAILED', {
      status_message: { message: `Could not install; see ${url}. (Or https://x.test/a.)` },
    })
    const html = renderGitHubMarkdown(render(run, finished(run)))
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1])
    expect(hrefs).toContain('https://docs.example.test/envs(setup)?a=1&amp;b=x_y')
    expect(hrefs).toContain('https://x.test/a')
    expect(html).not.toMatch(/href="[^"]*&amp;#/)
  })

  it('lets no API text notify, render HTML or link elsewhere', () => {
    const hostile = '@octo-org/admins <img src=x onerror=alert(1)> [click](https://evil.example)'
    const run = ended('FAILED', { title: hostile, status_message: { message: hostile } })
    const body = render(run, finished(run))
    const html = renderGitHubMarkdown(body)
    expect(body).not.toMatch(/@octo-org/)
    expect(body).toContain('@\u200docto-org')
    expect(html).not.toMatch(/<img|>click<\/a>|<[^>]*onerror/)
  })

  it('shows a short answer as it is, and collapses a long one', () => {
    const run = ended('SUCCEEDED')
    expect(render(run, finished(run), 'All good.')).toMatch(/\n\nAll good\.$/)
    const long = Array.from({ length: 60 }, (_, i) => `- finding ${i}`).join('\n')
    const body = render(run, finished(run), long)
    expect(body).toContain("<details><summary>The agent's answer</summary>\n\n- finding 0")
    expect(renderGitHubMarkdown(body)).toContain('<li>finding 59</li>')
  })

  it('fits a huge answer within the limit by clipping it before it is made safe', () => {
    const run = ended('SUCCEEDED')
    const withHistory: Marker = {
      ...marker,
      runs: [...marker.runs, record('run_old', '2026-11-23T10:00:00Z', { state: 'FAILED' })],
    }
    const body = renderComment(run, withHistory, {
      outcome: finished(run),
      answer: '<b>'.repeat(40_000),
    })
    expect(body.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS)
    expect(body).toMatch(
      /<\/details>\n\n<details><summary>Earlier runs \(1\)<\/summary>[\s\S]*<\/details>$/,
    )
    expect(renderGitHubMarkdown(body)).toContain('Earlier runs (1)')
  })

  it('records how the step ended in the marker, and says so in the history', () => {
    const run = ended('CANCELLED')
    const recorded = recordOf(run, {
      startedAt: '2026-11-23T10:00:00Z',
      ending: finished(run, 'run_newer').ending,
    })
    expect(recorded).toMatchObject({ outcome: 'superseded', supersededBy: 'run_newer' })
    const parsed = parseMarker(renderMarker({ ...marker, runs: [recorded] }))
    expect(parsed?.runs[0]).toEqual(recorded)
    expect(historyLine(recorded)).toBe(
      '- ⏭️ superseded by `run_newer` · run `run_abc` · [session](https://app.example.test/s/abc) · started 2026-11-23 10:00 UTC',
    )
  })
})

describe('codeSpan', () => {
  it('shows any text as typed, whatever backticks it holds', () => {
    for (const text of ['run_1', 'a`b', '``x``', '`']) {
      const html = renderGitHubMarkdown(codeSpan(text))
      expect(html).toContain(`<code>${text.replace(/&/g, '&amp;')}</code>`)
    }
    expect(codeSpan('<!-- cloud-agent-run: {} -->')).not.toContain('<!--')
  })
})
