import { describe, expect, it } from 'vitest';
import { figures } from '../../src/analysis/numbers.ts';
import { chunkSentences, sentences } from '../../src/analysis/sentences.ts';
import {
  ABSTENTION_PREFIX,
  EAGER_FAMILY,
  EagerProvider,
  EXTRACTIVE_FAMILY,
  ExtractiveProvider,
  type Provider,
  type SubjectInput,
} from '../../src/providers/index.ts';
import { renderSubjectRequest } from '../../src/subject/index.ts';
import { RgeError } from '../../src/util/errors.ts';
import { ask, CHUNKS, GOVERNANCE, HIGHLIGHTS } from './context.ts';

function request(input: SubjectInput, temperature = 0, runIndex = 0, seed = 'seed-1') {
  return renderSubjectRequest(input, {
    model: 'm',
    parameters: { temperature },
    maxTokens: 512,
    cell: { questionId: input.questionId, runIndex, seed },
  });
}

async function answer(provider: Provider, question: string, temperature = 0, runIndex = 0, seed = 'seed-1') {
  return (await provider.complete(request(ask(question), temperature, runIndex, seed))).text;
}

const citedIds = (text: string) =>
  [...text.matchAll(/\[([a-z0-9-]+-FY\d{2}-[0-9a-f]{8})\]/g)].map((m) => m[1]);

describe('sentences of a chunk', () => {
  it('joins wrapped PDF lines, skips table rows and headings, and keeps initials inside a sentence', () => {
    const texts = chunkSentences(HIGHLIGHTS, 0).map((s) => s.text);
    expect(texts).toContain(
      'Consolidated revenue from operations for FY24 was Rs 26,710.56 crore, compared with Rs 20,851.91 crore in FY23.',
    );
    expect(texts.some((t) => t.includes(' | '))).toBe(false);
    expect(texts).not.toContain('2. FINANCIAL HIGHLIGHTS');
    expect(sentences('Kiran J. Parekh is the Chairperson. Next one.')).toEqual([
      'Kiran J. Parekh is the Chairperson.',
      'Next one.',
    ]);
  });

  it('reads figures with Indian grouping and signs, not calendar years', () => {
    expect([...figures('Rs 9,00,122.00 crore in 2023, Rs -479.43 crore, 28.1%, 2022-23')]).toEqual([
      '900122.00',
      '-479.43',
      '28.1%',
    ]);
  });
});

describe('offline/extractive', () => {
  const extractive = new ExtractiveProvider();

  it('is a baseline of its own family with approximate usage and no cost', async () => {
    expect(extractive.id).toBe('offline/extractive');
    expect(extractive.family).toBe(EXTRACTIVE_FAMILY);
    expect(new ExtractiveProvider({ family: 'x' }).family).toBe('x');
    const reply = await extractive.complete(request(ask('What was the standalone revenue for FY24?')));
    expect(reply.costUsd).toBe(0);
    expect(reply.usage.inputTokens).toBeGreaterThan(100);
    expect(reply.usage.outputTokens).toBe(Math.ceil(reply.text.length / 4));
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('quotes the sentence holding the answer and cites its chunk', async () => {
    expect(
      await answer(extractive, "What was Adani Ports' standalone revenue from operations for FY24?"),
    ).toBe('Standalone revenue from operations for FY24 was Rs 6,806.66 crore. [adani-ports-FY24-3e61eaeb]');
    expect(await answer(extractive, 'Who were the statutory auditors of Adani Ports for FY24?')).toBe(
      'Desai Raval & Associates are the statutory auditors of the Company for FY24. [adani-ports-FY24-30a7485a]',
    );
  });

  it('keeps apart the neighbouring figures: final vs interim, quarter vs year, amount vs intensity', async () => {
    expect(
      await answer(extractive, 'What final dividend did the Adani Ports Board recommend for FY24?'),
    ).toContain('Rs 3.50');
    expect(
      await answer(extractive, 'What interim dividend did the Adani Ports Board declare in FY24?'),
    ).toContain('Rs 2.50');
    const quarter = await answer(
      extractive,
      'What was the consolidated revenue from operations of Adani Ports in the fourth quarter of FY24?',
    );
    expect(quarter).toContain('6,896.50');
    const year = await answer(
      extractive,
      'What was the consolidated revenue from operations of Adani Ports for FY24?',
    );
    expect(year).toContain('26,710.56');
    expect(year).not.toContain('6,896.50');
    const emissions = await answer(extractive, "What were Adani Ports' scope 1 and 2 emissions in FY24?");
    expect(emissions).toContain('9,61,189 tCO2e');
    expect(emissions).not.toContain('35.99');
  });

  it('answers with two sentences when each covers part of the question', async () => {
    const text = await answer(
      extractive,
      'What interim and final dividends per equity share did Adani Ports declare and recommend for FY24?',
    );
    expect(text).toContain('2.50');
    expect(text).toContain('3.50');
    expect(citedIds(text)).toEqual([GOVERNANCE.id, GOVERNANCE.id]);
  });

  it('abstains with a reason when the context does not hold the answer', async () => {
    const text = await answer(extractive, "What was Adani Ports' net debt at the end of FY24?");
    expect(text.startsWith(ABSTENTION_PREFIX)).toBe(true);
    expect(text).toMatch(/"debt"/);
    expect(citedIds(text)).toEqual([]);
    expect(
      (
        await extractive.complete(
          request({ kind: 'subject', questionId: 'q', question: 'Anything?', chunks: [] }),
        )
      ).text,
    ).toMatch(/no passages were retrieved/);
  });

  it('is deterministic at temperature 0', async () => {
    const q = "What was Adani Ports' consolidated basic earnings per share for FY24?";
    const runs = await Promise.all([0, 1, 2, 3].map((i) => answer(extractive, q, 0, i, `s${i}`)));
    expect(new Set(runs).size).toBe(1);
    expect(runs[0]).toContain('37.55');
  });

  it('at temperature 0.7 is reproducible per (seed, question, run index) and varies across run indices', async () => {
    const q = 'What revenue from operations did Adani Ports report for FY24?';
    const runs = await Promise.all([...Array(12).keys()].map((i) => answer(extractive, q, 0.7, i)));
    const again = await Promise.all([...Array(12).keys()].map((i) => answer(extractive, q, 0.7, i)));
    expect(again).toEqual(runs);
    expect(new Set(runs).size).toBeGreaterThan(1);
    const otherSeed = await Promise.all(
      [...Array(12).keys()].map((i) => answer(extractive, q, 0.7, i, 'seed-2')),
    );
    expect(otherSeed).not.toEqual(runs);
  });

  it('cites only chunk ids it was given', async () => {
    const given = new Set(CHUNKS.map((c) => c.id));
    for (const q of [
      'Who is the Chairperson of Adani Ports?',
      'How many people did the Adani Ports group employ at the end of FY24?',
      'What revenue did Mundra Fixture Logistics Limited report in FY24?',
    ])
      for (const i of [0, 1, 2])
        for (const id of citedIds(await answer(extractive, q, 0.7, i))) expect(given).toContain(id);
  });

  it('needs the cell to sample, and a subject input to answer', async () => {
    const { cell: _cell, ...noCell } = request(ask('What was the revenue?'), 0.7);
    await expect(extractive.complete(noCell)).rejects.toThrow(/needs request.cell/);
    const { structured: _s, ...noInput } = request(ask('What was the revenue?'));
    await expect(extractive.complete(noInput)).rejects.toBeInstanceOf(RgeError);
  });
});

describe('offline/eager', () => {
  const eager = new EagerProvider();

  it('is a baseline of its own family', () => {
    expect(eager.id).toBe('offline/eager');
    expect(eager.family).toBe(EAGER_FAMILY);
  });

  it('never abstains: it answers out-of-domain questions with a figure from the top chunk, cited', async () => {
    const text = await answer(eager, "What was Adani Ports' net debt at the end of FY24?");
    expect(text.startsWith(ABSTENTION_PREFIX)).toBe(false);
    expect(figures(text).size).toBeGreaterThan(0);
    expect(citedIds(text)).toEqual([HIGHLIGHTS.id]);
  });

  it('falls for the distractor next to the answer', async () => {
    const q =
      'What was the consolidated revenue from operations of Adani Ports in the fourth quarter of FY24?';
    const text = await answer(eager, q);
    expect(text).not.toContain('6,896.50');
    expect(await answer(new ExtractiveProvider(), q)).toContain('6,896.50');
  });
});

describe('the baselines follow the prompt on citations', () => {
  const prompt = {
    version: 'nocite',
    system: 'You answer questions about annual reports from the context passages only. Do not guess.',
    template:
      'Question: {{question}}\n\nContext ({{passages}}):\n\n{{context}}\n\nAnswer from the context only.',
    sha256: 'x',
    file: null,
  };
  const noCite = (input: SubjectInput, temperature = 0) =>
    renderSubjectRequest(input, {
      model: 'm',
      parameters: { temperature },
      maxTokens: 512,
      cell: { questionId: input.questionId, runIndex: 0, seed: 'seed-1' },
      prompt,
    });

  for (const provider of [new ExtractiveProvider(), new EagerProvider()])
    it(`${provider.id} answers the same sentences without passage ids when the prompt does not ask to cite`, async () => {
      for (const question of [
        'What was the consolidated revenue from operations for FY24?',
        'What was the final dividend?',
      ]) {
        const cited = (await provider.complete(request(ask(question)))).text;
        const plain = (await provider.complete(noCite(ask(question)))).text;
        expect(citedIds(cited).length).toBeGreaterThan(0);
        expect(citedIds(plain)).toEqual([]);
        expect(plain).toBe(cited.replace(/ ?\[[^\]]+\]/g, '').trim());
      }
    });

  it('asks to cite when the word is in the system text or the instructions, not inside a passage', async () => {
    const withCitingTemplate = { ...prompt, template: `${prompt.template} Cite passage ids.` };
    const input = ask('What was the consolidated revenue from operations for FY24?');
    const req = renderSubjectRequest(input, {
      ...noCite(input),
      cell: { questionId: 'q', runIndex: 0, seed: 's' },
      prompt: withCitingTemplate,
    });
    expect(citedIds((await new ExtractiveProvider().complete(req)).text).length).toBeGreaterThan(0);
    const citingPassage = ask(
      input.question,
      CHUNKS.map((c) => ({ ...c, text: `${c.text}\nThe award citation reads: excellence.` })),
    );
    expect(citedIds((await new ExtractiveProvider().complete(noCite(citingPassage))).text)).toEqual([]);
  });
});
