/** parseCsv: RFC 4180 records with their lines, strict about quotes, every bad record located. */
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/util/csv.ts';

const fields = (text: string) => parseCsv(text).records.map((r) => r.fields);

describe('parseCsv', () => {
  it('reads plain fields, records separated by LF or CRLF, with or without a last line break', () => {
    expect(fields('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(fields('a,b\r\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(fields('a,,\n')).toEqual([['a', '', '']]);
  });

  it('reads quoted fields: embedded commas, line breaks and doubled quotes', () => {
    const text = 'q,a\n"Who, exactly?","He said ""no""\nthen left"\n"",x\n';
    expect(parseCsv(text)).toEqual({
      records: [
        { line: 1, fields: ['q', 'a'] },
        { line: 2, fields: ['Who, exactly?', 'He said "no"\nthen left'] },
        { line: 4, fields: ['', 'x'] },
      ],
      issues: [],
    });
  });

  it('numbers records by the line they start on, across CRLF inside quotes and blank lines', () => {
    const text = 'h\r\n"one\r\ntwo"\r\n\r\nthree\r\n';
    expect(parseCsv(text).records).toEqual([
      { line: 1, fields: ['h'] },
      { line: 2, fields: ['one\r\ntwo'] },
      { line: 5, fields: ['three'] },
    ]);
  });

  it('drops a byte order mark and allows spaces around a quoted field', () => {
    expect(fields('\uFEFFa, "b" ,c\n')).toEqual([['a', 'b', 'c']]);
  });

  it('reports a quoted field never closed at the line it opened on', () => {
    expect(parseCsv('h\nok\n"open,\nmore\n')).toEqual({
      records: [
        { line: 1, fields: ['h'] },
        { line: 2, fields: ['ok'] },
      ],
      issues: [
        { line: 3, message: 'unterminated quoted field: the quote opened on this line is never closed' },
      ],
    });
  });

  it('reports a quote inside an unquoted field and text after a closing quote, and reads on', () => {
    const { records, issues } = parseCsv('h,i\nsay "hi",x\n"a"b,y\nlast,z\n');
    expect(records.map((r) => r.line)).toEqual([1, 4]);
    expect(issues).toEqual([
      {
        line: 2,
        message: 'a quote inside an unquoted field: quote the whole field and double the quotes in it',
      },
      { line: 3, message: 'text after a closing quote ("b"): a quoted field ends at its quote' },
    ]);
  });

  it('gives nothing for an empty or blank text', () => {
    expect(parseCsv('')).toEqual({ records: [], issues: [] });
    expect(parseCsv('\n\n  \n')).toEqual({ records: [], issues: [] });
  });
});
