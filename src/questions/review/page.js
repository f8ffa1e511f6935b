// The script of the review page of `rge questions review` (inlined by page.ts; runs in the browser).
// Keyboard-first: a accepts, e opens the edit form (Ctrl+Enter saves it: the server re-verifies the
// edit first), r opens the reasons (1-6 picks one, Enter rejects), j / k or the arrows go to the next /
// previous question, u undoes the last decision, Esc closes a form. Every decision is posted as it is
// made; the page resumes at the first question not decided. Data is put in the DOM with textContent only.

const state = { review: null, index: 0, view: null, mode: 'browse', reason: null, busy: false };

function status(message, kind = '') {
  $('status').textContent = message;
  $('status').className = kind;
}

function header() {
  const r = state.review;
  const decided = Object.keys(r.decided).length;
  $('progress').textContent = `Question ${state.index + 1} of ${r.total} · ${decided} decided`;
  $('order').textContent = r.order.order === 'random' ? `random order (seed ${r.order.seed})` : 'file order';
  $('summary').replaceChildren(...r.summary_lines.map((line) => el('p', { text: line })));
  $('main').dataset.index = String(state.index);
  $('main').dataset.decided = String(decided);
}

function card(title, ...children) {
  return el('div', { class: 'card' }, el('h2', { text: title }), ...children);
}

function numericGold(q) {
  if (q.numeric_gold.length === 0) return null;
  return card(
    'Numeric gold',
    el(
      'ul',
      {},
      ...q.numeric_gold.map((g) =>
        el('li', {
          text: `${g.label}: ${g.value} ${g.unit} (tolerance ${g.tolerance * 100}%)${g.derivation ? `, a ${g.derivation.op} of ${g.derivation.operands.map((o) => o.value).join(', ')}` : ''}`,
        }),
      ),
    ),
  );
}

function provenance(q) {
  const p = q.provenance;
  if (!p)
    return card('Provenance', el('p', { class: 'meta', text: 'none recorded (not a generated question)' }));
  return card(
    'Provenance',
    el('p', {
      class: 'meta',
      text: `generator ${p.generator.id} (${p.generator.kind}, ${p.generator.family}) · candidate ${p.candidate}`,
    }),
    el(
      'div',
      {},
      el('span', {
        class: p.seed_set ? 'tag seed' : 'tag',
        text: p.seed_set ? 'seed set (templated)' : 'model-written',
      }),
    ),
    el('div', {}, ...p.checks.map((c) => el('span', { class: 'tag', text: `✓ ${c}` }))),
    p.flags.length > 0
      ? el('div', {}, ...p.flags.map((f) => el('span', { class: 'tag flag', text: `⚑ ${f}` })))
      : el('p', { class: 'meta', text: 'no flags' }),
  );
}

function quoteCard(qv, i) {
  const where = [qv.document, qv.page === null ? null : `page ${qv.page}`, qv.section]
    .filter(Boolean)
    .join(' · ');
  const body = qv.found
    ? el('div', { class: 'page-text' }, qv.before, el('mark', { class: 'quote', text: qv.match }), qv.after)
    : el('p', { class: 'problem', text: qv.problem });
  return el(
    'div',
    { class: 'card quote-card', 'data-quote': i, 'data-found': qv.found ?? 'no' },
    el('h2', { text: `Gold quote ${i + 1}${where ? ` · ${where}` : ''}` }),
    el('blockquote', { text: qv.quote }),
    body,
  );
}

function renderQuestion(view) {
  const q = view.question;
  const cards = [
    card(
      `${view.id} · ${q.category} · expects ${q.expected_behavior} · ${q.difficulty}`,
      el('p', { class: 'question-text', text: q.text }),
      view.generated ? el('p', { class: 'meta', text: `as generated: ${view.generated.text}` }) : null,
    ),
    card(
      'Gold answer',
      el('p', { class: 'gold-answer', text: q.gold_answer }),
      view.generated ? el('p', { class: 'meta', text: `as generated: ${view.generated.gold_answer}` }) : null,
    ),
    numericGold(q),
    provenance(q),
    ...view.quotes.map(quoteCard),
  ].filter((node) => node !== null);
  $('question').replaceChildren(...cards);
  for (const box of document.querySelectorAll('.page-text')) {
    const mark = box.querySelector('mark');
    if (mark) box.scrollTop = Math.max(0, mark.offsetTop - box.offsetTop - 40);
  }
}

function renderDecision(view) {
  const d = view.decision;
  $('decision').replaceChildren(
    d
      ? el('span', {
          class: `decision-${d.decision}`,
          text: `${d.decision}${d.reason ? `: ${d.reason}` : ''}${d.note ? ` (${d.note})` : ''}`,
        })
      : el('span', { class: 'meta', text: 'pending: not decided yet' }),
  );
  $('decision').dataset.decision = d ? d.decision : 'pending';
}

function setMode(mode) {
  state.mode = mode;
  $('edit-form').hidden = mode !== 'edit';
  $('reject-form').hidden = mode !== 'reject';
  document.body.dataset.mode = mode;
}

async function load(index) {
  const view = await api(`/api/questions/${index}`);
  state.index = index;
  state.view = view;
  setMode('browse');
  renderQuestion(view);
  renderDecision(view);
  header();
}

async function go(step) {
  const next = state.index + step;
  if (next < 0 || next >= state.review.total) return;
  status('');
  await load(next).catch((err) => status(`could not load: ${err.message}`, 'error'));
}

/** Posts a decision; on success goes to the next question (or stays on the last one, saying so). */
async function decide(body) {
  if (state.busy) return;
  state.busy = true;
  status('saving…');
  try {
    state.review = (await api('/api/decisions', { question_id: state.view.id, ...body })).state;
  } catch (err) {
    status(err.message, 'error');
    return;
  } finally {
    state.busy = false;
  }
  const what = body.decision;
  if (state.index + 1 < state.review.total) await go(1);
  else await load(state.index);
  const left = state.review.total - Object.keys(state.review.decided).length;
  status(`${what}; ${left === 0 ? `all ${state.review.total} decided` : `${left} still to decide`}`, 'ok');
}

function openEdit() {
  const q = state.view.question;
  $('edit-text').value = q.text;
  $('edit-answer').value = q.gold_answer;
  $('edit-quotes').replaceChildren(
    ...q.gold_quotes.flatMap((quote, i) => [
      el('label', { htmlFor: `edit-quote-${i}`, text: `Gold quote ${i + 1}` }),
      el('textarea', { id: `edit-quote-${i}`, rows: 3, value: quote }),
    ]),
  );
  setMode('edit');
  $('edit-answer').focus();
}

function saveEdit() {
  const quotes = state.view.question.gold_quotes.map((_, i) => $(`edit-quote-${i}`).value);
  decide({
    decision: 'edited',
    edits: { text: $('edit-text').value, gold_answer: $('edit-answer').value, gold_quotes: quotes },
  });
}

function openReject() {
  state.reason = null;
  $('reject-note').value = '';
  $('reasons').replaceChildren(
    ...state.review.reasons.map((r, i) =>
      el(
        'li',
        { 'data-reason': r, onclick: () => chooseReason(i) },
        el('kbd', { text: String(i + 1) }),
        ` ${r}`,
      ),
    ),
  );
  setMode('reject');
  $('reject-form').focus();
}

function chooseReason(i) {
  state.reason = state.review.reasons[i] ?? null;
  for (const li of document.querySelectorAll('#reasons li'))
    li.classList.toggle('chosen', li.dataset.reason === state.reason);
  $('reject-note').focus();
}

function saveReject() {
  if (!state.reason) {
    status('choose a reason first (1-6)', 'error');
    return;
  }
  const note = $('reject-note').value.trim();
  decide({ decision: 'rejected', reason: state.reason, ...(note ? { note } : {}) });
}

async function undo() {
  if (state.busy) return;
  try {
    const { undone, state: review } = await api('/api/undo', {});
    state.review = review;
    if (undone === null) return status('nothing to undo', 'error');
    await load(review.ids.indexOf(undone));
    status(`undone: ${undone} is pending again`, 'ok');
  } catch (err) {
    status(`could not undo: ${err.message}`, 'error');
  }
}

function onFormKey(event) {
  if (event.key === 'Escape') {
    event.preventDefault();
    setMode('browse');
    document.activeElement?.blur();
    return true;
  }
  if (state.mode === 'edit' && event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    saveEdit();
    return true;
  }
  if (state.mode === 'reject') {
    const typing = event.target instanceof HTMLInputElement;
    const n = Number(event.key);
    if (!typing && Number.isInteger(n) && n >= 1 && n <= state.review.reasons.length) {
      event.preventDefault();
      chooseReason(n - 1);
      return true;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      saveReject();
      return true;
    }
  }
  return state.mode !== 'browse';
}

const KEYS = {
  a: () => decide({ decision: 'accepted' }),
  e: openEdit,
  r: openReject,
  u: undo,
  j: () => go(1),
  k: () => go(-1),
  ArrowRight: () => go(1),
  ArrowDown: () => go(1),
  ArrowLeft: () => go(-1),
  ArrowUp: () => go(-1),
};

function onKey(event) {
  if (!state.view || event.altKey) return;
  if (onFormKey(event)) return;
  if (event.ctrlKey || event.metaKey) return;
  const action = KEYS[event.key];
  if (!action) return;
  event.preventDefault();
  action();
}

async function start() {
  try {
    state.review = await api('/api/state');
    $('title').textContent = `rge: review ${state.review.title}`;
    $('accept').addEventListener('click', () => decide({ decision: 'accepted' }));
    $('edit').addEventListener('click', openEdit);
    $('reject').addEventListener('click', openReject);
    $('undo').addEventListener('click', undo);
    $('edit-save').addEventListener('click', saveEdit);
    $('edit-cancel').addEventListener('click', () => setMode('browse'));
    $('reject-save').addEventListener('click', saveReject);
    $('reject-cancel').addEventListener('click', () => setMode('browse'));
    $('reject-form').tabIndex = -1;
    document.addEventListener('keydown', onKey);
    await load(state.review.start);
    document.body.dataset.ready = 'true';
  } catch (err) {
    status(`could not load: ${err.message}`, 'error');
  }
}

start();
