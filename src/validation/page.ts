/**
 * The one page of `rge validation label` and `rge validation review`: self-contained HTML with its CSS and script inlined (no
 * external asset, no framework). The script (page.js) fetches the session and the items from the JSON
 * API and builds the DOM with textContent only, so nothing from the data is ever parsed as HTML.
 *
 * Made to fit a laptop screen (1280x800): the case scrolls in its own pane on the left; the scoring panel
 * on the right keeps the rationale, the Save button and the key hints in view at all times (its rubric
 * scrolls above them if it must). Below 900 px wide the two stack and the page scrolls as one.
 */
import { readFileSync } from 'node:fs';

const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

let page: string | undefined;

export function validationPageHtml(): string {
  page ??= `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rge: human validation</title>
<style>
${read('../util/page-base.css')}
${read('./page.css')}
</style>
</head>
<body>
<header>
  <h1 id="title">rge</h1>
  <span id="progress" aria-live="polite"></span>
  <span id="person"></span>
</header>
<main id="main" data-index="">
  <section id="case" aria-label="the response">
    <div id="question" class="card"></div>
    <div id="gold" class="card"></div>
    <div id="answer" class="card"></div>
    <div id="judges" class="card" hidden></div>
    <div id="chunks"></div>
  </section>
  <aside id="scoring" aria-label="your scores">
    <div id="rubric">
      <h2 id="scoring-title">Your label</h2>
      <div id="dimensions"></div>
    </div>
    <div id="submit">
      <label for="text" id="text-label">Rationale</label>
      <textarea id="text" rows="3"></textarea>
      <div class="row"><button type="button" id="save">Save and next (Enter)</button><p id="status" role="status"></p></div>
      <p class="keys" id="keys"><kbd>0</kbd> <kbd>1</kbd> <kbd>2</kbd> score the focused dimension and move on ·
        <kbd>↑</kbd> <kbd>↓</kbd> move between dimensions · <kbd>c</kbd> jump to the next citation ·
        <kbd>Enter</kbd> in the text saves and goes on (<kbd>Shift+Enter</kbd> a new line, <kbd>Esc</kbd> leaves it) ·
        <kbd>n</kbd> / <kbd>b</kbd> next / back</p>
    </div>
  </aside>
</main>
<script type="module">
${read('../util/page-base.js')}
${read('./page.js')}
</script>
</body>
</html>
`;
  return page;
}
