// What the local pages of rge share (inlined by their page.ts before the page's own script; runs in the
// browser): an element by id, an element built with its properties and children (text by textContent
// only, never parsed as HTML), and a call of the page's JSON API whose failure is an Error with the
// server's message.

// biome-ignore lint/correctness/noUnusedVariables: used by the page's own script, inlined after this one
const $ = (id) => document.getElementById(id);

// biome-ignore lint/correctness/noUnusedVariables: used by the page's own script, inlined after this one
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('data-') || key.startsWith('aria-') || key === 'tabindex' || key === 'title')
      node.setAttribute(key, String(value));
    else node[key] = value;
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// biome-ignore lint/correctness/noUnusedVariables: used by the page's own script, inlined after this one
async function api(path, body) {
  const init =
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }));
  if (!res.ok) throw new Error(data.error ?? `${res.status} ${res.statusText}`);
  return data;
}
