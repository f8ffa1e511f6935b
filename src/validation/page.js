// The script of the labelling and review page (inlined by page.ts; runs in the browser).
// Keyboard-first: 0/1/2 score the focused dimension and move focus to the next one; after calibration
// focus goes to the text; Enter (or Ctrl+Enter) in the text saves and goes to the next item; n / b
// (when not typing) go to the next / previous item; c (or a click on a citation in the answer) shows the
// next cited chunk at its supporting sentence. Every label is posted as it is given; the page resumes
// where this person stopped. Data is put in the DOM with textContent only.

const DIMENSIONS = ['correctness', 'grounding', 'calibration'];
const TITLES = { correctness: 'Correctness', grounding: 'Grounding', calibration: 'Calibration' };
const TEXT = DIMENSIONS.length; // the focus index of the text box

const state = {
  session: null,
  index: 0,
  view: null,
  scores: {},
  focus: 0,
  saving: false,
  cite: -1,
};

function status(message, kind = '') {
  const node = $('status');
  node.textContent = message;
  node.className = kind;
}

function progress() {
  const s = state.session;
  const done = Object.keys(s.done).length;
  const verb = s.mode === 'label' ? 'labelled' : 'reviewed';
  $('progress').textContent = `Item ${state.index + 1} of ${s.total} · ${done} ${verb}`;
  $('main').dataset.index = String(state.index);
  $('main').dataset.done = String(done);
}

function buildDimensions() {
  const box = $('dimensions');
  box.replaceChildren();
  DIMENSIONS.forEach((dim, i) => {
    const levels = state.session.rubric[dim];
    const buttons = levels.map((level) =>
      el(
        'button',
        {
          type: 'button',
          'data-dim': dim,
          'data-score': level.score,
          'aria-pressed': 'false',
          tabindex: -1,
          title: `${level.name}: ${level.meaning}`,
          onclick: () => score(i, level.score),
        },
        el('b', { text: String(level.score) }),
        level.name,
      ),
    );
    const meanings = el(
      'ul',
      { class: 'meanings' },
      ...levels.map((level) =>
        el('li', {}, el('b', { text: `${level.score} ${level.name}: ` }), level.meaning),
      ),
    );
    const row = el(
      'div',
      { class: 'dim', id: `dim-${dim}`, tabindex: 0, 'data-dim': dim },
      el('h3', { text: TITLES[dim] }),
      el('div', { class: 'levels' }, ...buttons),
      meanings,
    );
    row.addEventListener('focus', () => setFocus(i, false));
    box.append(row);
  });
}

function paintScores() {
  for (const button of document.querySelectorAll('.levels button')) {
    const pressed = state.scores[button.dataset.dim] === Number(button.dataset.score);
    button.setAttribute('aria-pressed', String(pressed));
  }
  DIMENSIONS.forEach((dim, i) => {
    $(`dim-${dim}`).classList.toggle('focused', state.focus === i);
  });
}

function setFocus(i, move = true) {
  state.focus = i;
  paintScores();
  if (!move) return;
  if (i === TEXT) $('text').focus();
  else $(`dim-${DIMENSIONS[i]}`).focus();
}

function score(i, value) {
  state.scores[DIMENSIONS[i]] = value;
  setFocus(i + 1);
}

function section(title, ...children) {
  return [el('h2', { text: title }), ...children.filter((c) => c !== null && c !== undefined)];
}

/** The chunk's text with its marks: support (yellow, cited chunks only) and gold quotes (green). */
function chunkText(c) {
  return el(
    'div',
    { class: 'chunk-text' },
    ...c.segments.map((s) => {
      if (s.reason === null && !s.gold) return s.text;
      const what = [
        s.reason === 'figure' ? 'shares a figure with the answer' : null,
        s.reason === 'words' ? 'shares most content words with an answer sentence' : null,
        s.gold ? 'a gold quote' : null,
      ].filter(Boolean);
      return el('mark', {
        class: [s.reason, s.gold ? 'gold' : null].filter(Boolean).join(' '),
        text: s.text,
        title: what.join('; '),
      });
    }),
  );
}

function chunkMeta(c) {
  return el(
    'span',
    { class: 'chunk-meta' },
    el('span', { class: 'chunk-id', text: c.id }),
    ` · #${c.rank} retrieved${c.company ? ` · ${c.company}` : ''}${c.source ? ` · ${c.source}` : ''}${c.fy ? ` · ${c.fy}` : ''}${c.pages[0] > 0 ? ` · pages ${c.pages[0]}-${c.pages[1]}` : ''}${c.heading ? ` · ${c.heading}` : ''}`,
    c.cited ? el('span', { class: 'badge', text: 'cited' }) : null,
    c.gold ? el('span', { class: 'badge', text: 'holds a gold quote' }) : null,
  );
}

/** Cited chunks open, each scrolled to its first mark; the others folded to their best line. */
function renderChunk(c) {
  if (c.cited) return el('div', { class: 'chunk cited', 'data-chunk': c.id }, chunkMeta(c), chunkText(c));
  return el(
    'details',
    { class: c.gold ? 'chunk gold' : 'chunk', 'data-chunk': c.id },
    el('summary', {}, chunkMeta(c), c.best ? el('span', { class: 'best', text: c.best }) : null),
    chunkText(c),
  );
}

/** The first mark of a chunk worth seeing: supporting the answer, else a gold quote. */
function firstMark(chunk) {
  return chunk.querySelector('mark.figure, mark.words') ?? chunk.querySelector('mark.gold');
}

/** Scrolls each open chunk's text box (not the pane) so that its first mark is at its top. */
function scrollBoxesToMarks() {
  for (const box of document.querySelectorAll('#chunks .chunk.cited .chunk-text')) {
    const mark = firstMark(box);
    if (mark) box.scrollTop = Math.max(0, mark.offsetTop - box.offsetTop - 30);
  }
}

/** Shows a cited chunk: opens it, brings its first mark to the middle of the pane, and flashes it. */
function jumpTo(id) {
  const chunk = document.querySelector(`#chunks [data-chunk="${CSS.escape(id)}"]`);
  if (!chunk) return;
  if (chunk.tagName === 'DETAILS') chunk.open = true;
  const target = firstMark(chunk) ?? chunk;
  target.scrollIntoView({ block: 'center' });
  for (const old of document.querySelectorAll('.flash')) old.classList.remove('flash');
  target.classList.add('flash');
  chunk.classList.add('flash');
  document.body.dataset.jumped = id;
}

function renderCase(view) {
  $('question').replaceChildren(
    ...section(
      'Question',
      el('span', { class: 'badge', text: view.category }),
      el('span', { class: 'badge', text: `expected: ${view.expected_behavior}` }),
      state.session.mode === 'review'
        ? el('span', { class: 'badge', text: `subject: ${view.subject_id} (${view.model})` })
        : null,
      el('span', { class: 'badge', text: state.session.mode === 'review' ? view.item_id : view.question_id }),
      el('p', { class: 'question-text', text: view.question }),
    ),
  );
  $('gold').replaceChildren(
    ...section('Gold answer', el('p', { text: view.gold_answer })),
    view.gold_quotes.length
      ? el(
          'ul',
          { class: 'gold-quotes', title: 'gold quotes (underlined in green where a chunk holds them)' },
          ...view.gold_quotes.map((q) => el('li', { text: q })),
        )
      : el('p', { class: 'chunk-meta', text: 'no gold quotes' }),
  );
  const ids = new Set(view.chunks.map((c) => c.id));
  const answer = el(
    'div',
    { class: 'answer-text' },
    ...view.answer_parts.map((p) =>
      p.cite === null
        ? p.text
        : ids.has(p.cite)
          ? el('button', {
              type: 'button',
              class: 'cite',
              text: p.text,
              tabindex: -1,
              'data-cite': p.cite,
              title: 'show the cited chunk (c)',
              onclick: () => jumpTo(p.cite),
            })
          : el('span', { class: 'cite unknown', text: p.text, title: 'not a retrieved chunk' }),
    ),
  );
  $('answer').replaceChildren(...section('Answer', answer));
  $('chunks').replaceChildren(
    el(
      'h2',
      { class: 'chunks-title' },
      `Retrieved chunks (${view.chunks.length}; cited: `,
      view.cited.length ? el('span', { class: 'chunk-id', text: view.cited.join(', ') }) : 'none',
      ')',
      el('span', { class: 'legend', text: 'yellow: supports the answer · green: a gold quote' }),
    ),
    ...view.chunks.map(renderChunk),
  );
  state.cite = -1;
}

/** c: the answer's next citation (of a retrieved chunk), round and round. */
function nextCitation() {
  const cites = [...document.querySelectorAll('#answer .cite[data-cite]')].map((b) => b.dataset.cite);
  if (cites.length === 0) {
    status('the answer cites no retrieved chunk');
    return;
  }
  state.cite = (state.cite + 1) % cites.length;
  jumpTo(cites[state.cite]);
}

function renderVerdicts(verdicts, contested) {
  const box = $('judges');
  const mine = state.session.done[state.view.item_id];
  const title =
    state.session.mode === 'label' ? 'Judges said' : `Judge verdicts (contested on ${contested.join(', ')})`;
  const cards = verdicts.map((v) => {
    if (v.status !== 'scored' || v.verdict === null)
      return el(
        'div',
        { class: 'verdict' },
        el('h3', { text: `${v.judgeId} (${v.family}): unscored` }),
        el('p', { text: v.error ?? '' }),
        el('div', { class: 'raw', text: v.raw }),
      );
    const dims = DIMENSIONS.map((dim) => {
      const d = v.verdict[dim];
      return el(
        'div',
        {
          class: contested.includes(dim) ? 'verdict-dim contested' : 'verdict-dim',
          'data-judge': v.judgeId,
          'data-dim': dim,
        },
        el('span', { class: 'verdict-score', text: `${TITLES[dim]}: ${d.score}` }),
        mine && state.session.mode === 'label' ? ` (you: ${mine[dim]})` : '',
        d.evidence.length
          ? el('ul', { class: 'evidence' }, ...d.evidence.map((q) => el('li', { text: `“${q}”` })))
          : null,
        el('div', { text: d.rationale }),
      );
    });
    const claims = v.verdict.unsupported_claims.length
      ? el('div', {}, el('b', { text: 'Unsupported claims: ' }), v.verdict.unsupported_claims.join(' | '))
      : null;
    return el('div', { class: 'verdict' }, el('h3', { text: `${v.judgeId} (${v.family})` }), ...dims, claims);
  });
  box.replaceChildren(el('h2', { text: title }), el('div', { class: 'verdicts' }, ...cards));
  // for comparison after the case in label mode; first in review mode, where the verdicts are the point
  if (state.session.mode === 'label') $('answer').after(box);
  else $('question').after(box);
  box.hidden = false;
}

async function showJudgesIfLabelled() {
  const view = state.view;
  if (state.session.mode !== 'label' || !(view.item_id in state.session.done)) return;
  const { verdicts } = await api(`/api/items/${view.index}/verdicts`);
  if (state.view === view) renderVerdicts(verdicts, []);
}

async function load(index) {
  const view = await api(`/api/items/${index}`);
  state.index = index;
  state.view = view;
  const given = state.session.done[view.item_id];
  state.scores = given
    ? { correctness: given.correctness, grounding: given.grounding, calibration: given.calibration }
    : {};
  $('text').value = given ? given.text : '';
  $('judges').replaceChildren();
  $('judges').hidden = true;
  renderCase(view);
  $('case').scrollTop = 0;
  scrollBoxesToMarks();
  delete document.body.dataset.jumped;
  if (state.session.mode === 'review') {
    for (const dim of DIMENSIONS)
      $(`dim-${dim}`).classList.toggle('contested', view.contested_dimensions.includes(dim));
    renderVerdicts(view.verdicts, view.contested_dimensions);
  }
  progress();
  status(
    given
      ? `${state.session.mode === 'label' ? 'labelled' : 'reviewed'} ${new Date(given.at).toLocaleString()}; a new save replaces it`
      : '',
  );
  setFocus(0);
  await showJudgesIfLabelled();
}

async function go(delta) {
  const next = state.index + delta;
  if (next < 0 || next >= state.session.total) {
    status(next < 0 ? 'this is the first item' : 'this is the last item');
    return;
  }
  try {
    await load(next);
  } catch (err) {
    status(`could not load item ${next + 1}: ${err.message}`, 'error');
  }
}

async function save() {
  if (state.saving) return;
  const missing = DIMENSIONS.findIndex((d) => state.scores[d] === undefined);
  if (missing >= 0) {
    status(`score ${DIMENSIONS[missing]} first (0, 1 or 2)`, 'error');
    setFocus(missing);
    return;
  }
  const text = $('text').value.trim();
  const label = state.session.mode === 'label';
  if (!text) {
    status(`write a ${label ? 'rationale' : 'note'} first`, 'error');
    setFocus(TEXT);
    return;
  }
  const scores = {
    correctness: state.scores.correctness,
    grounding: state.scores.grounding,
    calibration: state.scores.calibration,
  };
  const body = label
    ? { item_id: state.view.item_id, ...scores, rationale: text }
    : { item_id: state.view.item_id, outcome: scores, note: text };
  state.saving = true;
  try {
    state.session = (await api(label ? '/api/labels' : '/api/reviews', body)).state;
  } catch (err) {
    status(`not saved: ${err.message}`, 'error');
    return;
  } finally {
    state.saving = false;
  }
  progress();
  const session = state.session;
  if (state.index + 1 < session.total) await go(1);
  else {
    const left = session.total - Object.keys(session.done).length;
    status(left === 0 ? `saved: all ${session.total} done` : `saved; ${left} item(s) still to do`, 'ok');
    await showJudgesIfLabelled().catch((err) =>
      status(`saved; could not show the judges: ${err.message}`, 'error'),
    );
  }
}

function onKey(event) {
  if (!state.view) return;
  const typing = event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement;
  if (typing) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey || !event.shiftKey)) {
      event.preventDefault();
      save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setFocus(TEXT - 1);
    }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === '0' || event.key === '1' || event.key === '2') {
    event.preventDefault();
    const i = state.focus < TEXT ? state.focus : DIMENSIONS.findIndex((d) => state.scores[d] === undefined);
    if (i >= 0) score(i, Number(event.key));
  } else if (event.key === 'n') {
    event.preventDefault();
    go(1);
  } else if (event.key === 'b') {
    event.preventDefault();
    go(-1);
  } else if (event.key === 'c') {
    event.preventDefault();
    nextCitation();
  } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    setFocus(Math.min(TEXT, Math.max(0, state.focus + (event.key === 'ArrowDown' ? 1 : -1))));
  } else if (event.key === 'Enter') {
    event.preventDefault();
    setFocus(TEXT);
  }
}

async function start() {
  try {
    state.session = await api('/api/session');
    const s = state.session;
    $('title').textContent = s.title;
    $('person').textContent = `${s.mode === 'label' ? 'labeller' : 'reviewer'}: ${s.person}`;
    $('scoring-title').textContent = s.mode === 'label' ? 'Your label' : 'Your outcome';
    $('text-label').textContent = s.mode === 'label' ? 'Rationale' : 'Note';
    buildDimensions();
    $('text').addEventListener('focus', () => setFocus(TEXT, false));
    $('save').addEventListener('click', () => save());
    document.addEventListener('keydown', onKey);
    await load(s.start);
    document.body.dataset.ready = 'true';
  } catch (err) {
    status(`could not load: ${err.message}`, 'error');
  }
}

start();
