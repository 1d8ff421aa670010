import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import { parseArtifacts } from '../../src/agent/artifacts.ts'
import { renderAnswerBlock, renderArtifacts, renderBlocked } from '../../src/summary/agent-work.ts'
import { clipAnswer } from '../../src/text/markdown.ts'
import { renderCommentAnswer } from '../../src/github/answer.ts'

const renderer = new MarkdownIt({ html: true })

describe('the answer block', () => {
  it('shows the answer as Markdown in an open block, and nothing when there is none', () => {
    const block = renderAnswerBlock('## Verdict\n\n**Approve**')
    expect(block).toContain("<details open><summary>The agent's answer</summary>")
    expect(renderer.render(block ?? '')).toContain('<strong>Approve</strong>')
    expect(renderAnswerBlock(undefined)).toBeUndefined()
    expect(renderAnswerBlock('  ')).toBeUndefined()
  })

  it('cuts a long answer before making it safe, so an open fence is still closed', () => {
    const answer = `\`\`\`\n${'x'.repeat(300_000)}`
    const block = renderAnswerBlock(answer) ?? ''
    expect(block.length).toBeLessThan(210_000)
    const html = renderer.parse(`${block}\n\nAFTER`, {})
    expect(
      html
        .filter((token) => token.type === 'html_block')
        .at(-1)
        ?.content.trim(),
    ).toBe('</details>')
  })

  it('gives the comment its answer, cut to leave room within the comment limit', () => {
    expect(renderCommentAnswer('hi @octocat')).toBe('hi @\u200doctocat')
    expect((renderCommentAnswer('y'.repeat(100_000)) ?? '').length).toBeLessThan(51_000)
    expect(clipAnswer('short', 10)).toBe('short')
  })
})

describe('the artifacts list', () => {
  const artifacts = parseArtifacts([
    {
      artifact_type: 'PULL_REQUEST',
      data: { url: 'https://github.com/o/r/pull/7', branch: 'fix' },
    },
    {
      artifact_type: 'FILE',
      data: { artifact_uid: 'u1', filepath: 'out/<b>review</b>.json', filename: 'r' },
    },
  ])

  it('lists each artifact, links what has a URL, and says where downloads went', () => {
    const file = artifacts[1]
    if (!file) throw new Error('no file')
    const text =
      renderArtifacts(artifacts, new Map([[file, '/tmp/dl/out/review.json']]), '/tmp/dl') ?? ''
    expect(text).toContain('[fix](https://github.com/o/r/pull/7)')
    expect(text).toContain('→ <code>/tmp/dl/out/review.json</code>')
    expect(text).toContain('Downloaded files are in <code>/tmp/dl</code>.')
    expect(text).not.toContain('<b>')
    expect(renderArtifacts([], new Map(), undefined)).toBeUndefined()
  })
})

describe('the BLOCKED block', () => {
  it('says how to answer and shows the question safely', () => {
    const text = renderBlocked('Merge into <b>main</b>? @octocat', {
      sessionLink: 'https://app/s/1',
      continueRun: true,
    })
    expect(text).toContain('answer in the [session](https://app/s/1), or reply with a comment here')
    expect(text).not.toContain('<b>')
    expect(text).toContain('@\u200doctocat')
  })
})
