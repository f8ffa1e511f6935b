import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crossFamilyPanel, PanelError } from '../../src/judging/panel.ts';
import { panelFor as configPanel, loadRunConfig } from '../../src/run/config/config.ts';

const CONFIGS = ['fixture', 'published'].map((name) =>
  fileURLToPath(new URL(`../../configs/${name}.yaml`, import.meta.url)),
);

const j = (id: string, family: string) => ({ id, family });

describe('crossFamilyPanel', () => {
  it('no model judges its own family: every subject x judge combination of both configs', async () => {
    for (const path of CONFIGS) {
      const config = await loadRunConfig(path);
      for (const subject of config.subjects) {
        const panel = crossFamilyPanel(subject.family, config.judges);
        expect(panel).toHaveLength(2);
        for (const judge of config.judges) {
          const chosen = panel.some((p) => p.id === judge.id);
          // a judge of the subject's family is never chosen
          if (judge.family === subject.family) expect(chosen, `${subject.id} x ${judge.id}`).toBe(false);
        }
        expect(panel.every((p) => p.family !== subject.family)).toBe(true);
        // two different families where the config has them (both configs do)
        expect(panel[0].family).not.toBe(panel[1].family);
        // the run config's panel is this panel
        expect(configPanel(config, subject.id).map((p) => p.id)).toEqual(panel.map((p) => p.id));
      }
    }
  });

  it('the published panel: each live subject judged by the other two vendors, in configured order', async () => {
    const config = await loadRunConfig(CONFIGS[1] as string);
    const ids = (subjectId: string) => configPanel(config, subjectId).map((p) => p.id);
    expect(ids('claude')).toEqual(['gpt-judge', 'gemini-judge']);
    expect(ids('gpt')).toEqual(['claude-judge', 'gemini-judge']);
    expect(ids('gemini')).toEqual(['claude-judge', 'gpt-judge']);
  });

  it('picks exactly two, preferring a second family over a second judge of the first family', () => {
    const judges = [j('a1', 'a'), j('b1', 'b'), j('b2', 'b'), j('c1', 'c')];
    expect(crossFamilyPanel('a', judges).map((p) => p.id)).toEqual(['b1', 'c1']);
    expect(crossFamilyPanel('c', judges).map((p) => p.id)).toEqual(['a1', 'b1']);
    expect(crossFamilyPanel('z', judges).map((p) => p.id)).toEqual(['a1', 'b1']);
    // only one other family: two judges of it
    expect(crossFamilyPanel('a', [j('a1', 'a'), j('b1', 'b'), j('b2', 'b')]).map((p) => p.id)).toEqual([
      'b1',
      'b2',
    ]);
  });

  it('is deterministic: the same input gives the same panel', () => {
    const judges = [j('x', 'p'), j('y', 'q'), j('z', 'r')];
    expect(crossFamilyPanel('s', judges)).toEqual(crossFamilyPanel('s', judges));
  });

  it('fails when fewer than two judges of other families exist', () => {
    expect(() => crossFamilyPanel('a', [j('a1', 'a'), j('b1', 'b')])).toThrow(PanelError);
    expect(() => crossFamilyPanel('a', [j('a1', 'a'), j('a2', 'a')])).toThrow(
      /needs 2 judges of other families, found 0/,
    );
    expect(() => crossFamilyPanel('a', [])).toThrow(PanelError);
  });
});
