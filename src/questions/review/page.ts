/**
 * The page of `rge questions review`: self-contained HTML with its CSS and script inlined (no external
 * asset, no framework), in the style of the labelling page (src/validation/page.ts). The script
 * (page.js) fetches the review's state and each question from the JSON API and builds the DOM with
 * textContent only, so nothing from the questions or the documents is ever parsed as HTML.
 *
 * Two panes: the question (its text, gold answer, numeric gold, category, provenance, and each gold
 * quote highlighted in its page) scrolls on the left; the decision panel on the right keeps the actions,
 * the edit and reject forms, the status and the key hints in view.
 */
import { readFileSync } from 'node:fs';

const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

let page: string | undefined;

export function reviewPageHtml(): string {
  page ??= `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rge: review generated questions</title>
<style>
${read('../../util/page-base.css')}
${read('./page.css')}
</style>
</head>
<body>
<header>
  <h1 id="title">rge</h1>
  <span id="progress" aria-live="polite"></span>
  <span id="order"></span>
</header>
<div id="summary" aria-label="review summary"></div>
<main id="main" data-index="">
  <section id="question" aria-label="the question"></section>
  <aside id="decide" aria-label="your decision">
    <div id="decision" class="card"></div>
    <div id="actions" class="row">
      <button type="button" id="accept">Accept <kbd>a</kbd></button>
      <button type="button" id="edit">Edit <kbd>e</kbd></button>
      <button type="button" id="reject">Reject <kbd>r</kbd></button>
      <button type="button" id="undo">Undo <kbd>u</kbd></button>
    </div>
    <form id="edit-form" hidden>
      <label for="edit-text">Question</label>
      <textarea id="edit-text" rows="3"></textarea>
      <label for="edit-answer">Gold answer</label>
      <textarea id="edit-answer" rows="3"></textarea>
      <div id="edit-quotes"></div>
      <div class="row"><button type="button" id="edit-save">Save (Ctrl+Enter)</button>
        <button type="button" id="edit-cancel">Cancel (Esc)</button></div>
    </form>
    <form id="reject-form" hidden>
      <p>Why? Press a number:</p>
      <ol id="reasons"></ol>
      <label for="reject-note">Note (required for other)</label>
      <input id="reject-note" type="text" autocomplete="off">
      <div class="row"><button type="button" id="reject-save">Reject (Enter)</button>
        <button type="button" id="reject-cancel">Cancel (Esc)</button></div>
    </form>
    <p id="status" role="status"></p>
    <p class="keys"><kbd>a</kbd> accept · <kbd>e</kbd> edit (<kbd>Ctrl+Enter</kbd> saves, re-verified) ·
      <kbd>r</kbd> reject, then <kbd>1</kbd>-<kbd>6</kbd> a reason and <kbd>Enter</kbd> ·
      <kbd>j</kbd> / <kbd>k</kbd> (or arrows) next / previous · <kbd>u</kbd> undo the last decision</p>
  </aside>
</main>
<script type="module">
${read('../../util/page-base.js')}
${read('./page.js')}
</script>
</body>
</html>
`;
  return page;
}
