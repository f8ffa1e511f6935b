import { describe, expect, it } from 'vitest';
import { parseCompanyCsv, parseCompanyYaml } from '../../src/corpus/companies.ts';

describe('parseCompanyCsv', () => {
  it('reads file,company[,fy] with an optional header, comments, quotes and FY forms', () => {
    const map = parseCompanyCsv(
      [
        'file,company,fy',
        '# FinanceBench',
        'infosys-q4fy24-condensed-consolidated-indas-fs.pdf,Infosys Limited,FY2024',
        '',
        '3M_2022_10K.pdf,3m',
        '"odd, name.pdf","Tata Steel Ltd, India",fy2023-24',
      ].join('\n'),
      'c.csv',
    );
    expect(Object.fromEntries(map)).toEqual({
      'infosys-q4fy24-condensed-consolidated-indas-fs.pdf': {
        company: 'infosys-limited',
        name: 'Infosys Limited',
        fy: 'FY24',
        line: 3,
      },
      '3M_2022_10K.pdf': { company: '3m', name: null, fy: null, line: 5 },
      'odd, name.pdf': {
        company: 'tata-steel-ltd-india',
        name: 'Tata Steel Ltd, India',
        fy: 'FY24',
        line: 6,
      },
    });
  });

  it.each([
    ['a.pdf\n', 1, /expected file,company\[,fy\], got 1 field/],
    ['a.pdf,Acme\nb.pdf,Beta,FY24,extra\n', 2, /got 4 field/],
    ['a.pdf,Acme,2024x\n', 1, /fy must look like FY24/],
    ['a.pdf,,FY24\n', 1, /company is empty/],
    ['a.pdf,Acme\n\na.pdf,Other\n', 3, /a\.pdf is named twice \(first on line 1\)/],
    ['"a.pdf,Acme\n', 1, /quoted field is not closed/],
  ])('names the file and line of a bad line (%j)', (text, line, why) => {
    let caught: unknown;
    try {
      parseCompanyCsv(text, '/x/companies.csv');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).message).toMatch(new RegExp(`^/x/companies\\.csv:${line}: `));
    expect((caught as Error).message).toMatch(why);
  });
});

describe('parseCompanyYaml', () => {
  it('reads a name, or company/name/fy, per file', () => {
    const map = parseCompanyYaml(
      [
        'infosys-q4fy24.pdf:',
        '  company: infosys',
        '  name: Infosys Limited',
        '  fy: FY24',
        'Boeing_2022.pdf: The Boeing Company',
        'hdfc.pdf: { company: hdfc-bank }',
      ].join('\n'),
      'companies.yaml',
    );
    expect(Object.fromEntries(map)).toEqual({
      'infosys-q4fy24.pdf': { company: 'infosys', name: 'Infosys Limited', fy: 'FY24', line: 1 },
      'Boeing_2022.pdf': { company: 'the-boeing-company', name: 'The Boeing Company', fy: null, line: 5 },
      'hdfc.pdf': { company: 'hdfc-bank', name: null, fy: null, line: 6 },
    });
  });

  it('names the line of a bad entry', () => {
    expect(() => parseCompanyYaml('a.pdf: Acme\nb.pdf:\n  company: beta\n  year: FY24\n', 'c.yaml')).toThrow(
      /^c\.yaml:4: b\.pdf: unknown field "year"/,
    );
    expect(() => parseCompanyYaml('a.pdf: Acme\nb.pdf: [1, 2]\n', 'c.yaml')).toThrow(
      /^c\.yaml:2: b\.pdf: expected/,
    );
    expect(() => parseCompanyYaml('- a.pdf\n', 'c.yaml')).toThrow(/^c\.yaml:1: expected a map/);
  });
});
