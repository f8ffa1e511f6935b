/**
 * The one page of `rge label` and `rge review`: self-contained HTML with its CSS and script inlined (no
 * external asset, no framework). The script (page.js) fetches the session and the items from the JSON
 * API and builds the DOM with textContent only, so nothing from the data is ever parsed as HTML.
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
    <div id="judges" class="card" hidden></div>
    <div id="gold" class="card"></div>
    <div id="answer" class="card"></div>
    <div id="chunks"></div>
  </section>
  <aside id="scoring" aria-label="your scores">
    <h2 id="scoring-title">Your label</h2>
    <div id="dimensions"></div>
    <label for="text" id="text-label">Rationale</label>
    <textarea id="text" rows="5"></textarea>
    <button type="button" id="save">Save and next (Enter)</button>
    <p id="status" role="status"></p>
    <p class="keys"><kbd>0</kbd> <kbd>1</kbd> <kbd>2</kbd> score the focused dimension and move on ·
      <kbd>Enter</kbd> in the text saves and goes to the next item (<kbd>Shift+Enter</kbd> a new line, <kbd>Esc</kbd> leaves it) ·
      <kbd>n</kbd> / <kbd>b</kbd> next / back · <kbd>↑</kbd> <kbd>↓</kbd> move between dimensions</p>
  </aside>
</main>
<script type="module">
${read('./page.js')}
</script>
</body>
</html>
`;
  return page;
}
