/**
 * The renderer that stands in for github.com when we look at what the action
 * writes: it must drop what GitHub drops and keep what GitHub keeps, or the
 * screenshots and the rendering checks built on it would lie.
 */
import { describe, expect, it } from 'vitest'
import { renderGitHubMarkdown } from '../../scripts/render/github-markdown.ts'
import { renderSummary } from '../../src/summary/summary.ts'

describe('renderGitHubMarkdown', () => {
  it('drops scripts, event handlers and styles, as GitHub does', () => {
    const html = renderGitHubMarkdown(
      '<script>alert(1)</script><img src="x" onerror="alert(2)"><b style="color:red">b</b>',
    )
    expect(html).not.toMatch(/<script|onerror|style=/)
    expect(html).toContain('<b>b</b>')
  })

  it('keeps tables, details and alerts', () => {
    const html = renderGitHubMarkdown(
      '| a | b |\n|---|---|\n| 1 | 2 |\n\n<details><summary>More</summary>\n\nhidden\n</details>\n\n> [!WARNING]\n> careful',
    )
    expect(html).toContain('<table>')
    expect(html).toContain('<summary>More</summary>')
    expect(html).toMatch(/markdown-alert-warning/)
  })

  it('hides HTML comments, as GitHub hides the comment marker', () => {
    expect(renderGitHubMarkdown('<!-- cloud-agent-run: {} -->\nvisible')).not.toContain(
      'cloud-agent-run',
    )
  })
})

describe('the job summary, rendered', () => {
  // GitHub autolinks a bare URL wherever it appears, so only Markdown's own link and image
  // syntax, and raw HTML, are what API text must not be able to use.
  it('shows hostile API text as text: no element, Markdown link or image comes from it', () => {
    const hostile =
      '<img src=x onerror=alert(1)> [click](https://evil.example) ![p](https://evil.example/p.png) | cell'
    const html = renderGitHubMarkdown(
      renderSummary({
        kind: 'finished',
        elapsedMs: 1000,
        run: {
          run_id: 'run_1',
          state: 'FAILED',
          title: hostile,
          status_message: { message: hostile },
        },
      }),
    )
    expect(html).not.toMatch(/<img|>click<\/a>|<[^>]*onerror/)
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;')
  })
})
