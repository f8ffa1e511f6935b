import type { Chunk } from '../../src/corpus/schema.ts';
import { sha1 } from '../../src/util/fs.ts';

/** Thirty hand-written passages in the style of Indian annual reports, three companies, two years. */
type Raw = [company: string, fy: string, heading: string, page: number, text: string];

const RAW: Raw[] = [
  [
    'hdfc-bank',
    'FY24',
    'Financial highlights',
    12,
    'Net profit for the year rose to ₹60,812 crore, up 37.9% from the previous year, after the merger with HDFC Limited.',
  ],
  [
    'hdfc-bank',
    'FY24',
    'Asset quality',
    45,
    'Gross non-performing assets were 1.24% of gross advances and net NPA stood at 0.33% as of March 31, 2024.',
  ],
  [
    'hdfc-bank',
    'FY24',
    'Our people',
    88,
    'The bank had 2,13,527 employees at the end of the year and hired over 60,000 people across branches.',
  ],
  [
    'hdfc-bank',
    'FY24',
    'Dividend',
    14,
    'The Board recommended a dividend of ₹19.50 per equity share of face value ₹1 for the financial year.',
  ],
  [
    'hdfc-bank',
    'FY24',
    'Branch network',
    30,
    'We added 913 branches during the year, taking the network to 8,738 branches in 4,065 cities and towns.',
  ],
  [
    'hdfc-bank',
    'FY23',
    'Financial highlights',
    10,
    'Net profit for the year was ₹44,109 crore, an increase of 19.3% over the previous financial year.',
  ],
  [
    'hdfc-bank',
    'FY23',
    'Asset quality',
    41,
    'Gross non-performing assets were 1.12% of gross advances and net non-performing assets were 0.27%.',
  ],
  [
    'hdfc-bank',
    'FY23',
    'Corporate social responsibility',
    70,
    'CSR spend for the year amounted to ₹820.9 crore under the Parivartan programme for rural development.',
  ],
  [
    'hdfc-bank',
    'FY23',
    'Digital banking',
    52,
    'Mobile banking transactions grew strongly and the PayZapp app was relaunched with a new design.',
  ],
  [
    'hdfc-bank',
    'FY23',
    'Capital adequacy',
    48,
    'The capital adequacy ratio under Basel III was 19.26% with Tier 1 capital at 17.13%.',
  ],
  [
    'infosys',
    'FY24',
    'Financial highlights',
    8,
    'Revenue grew 4.7% in constant currency to $18,562 million and operating margin was 20.7%.',
  ],
  [
    'infosys',
    'FY24',
    'Talent',
    60,
    'Employee attrition declined to 12.6% from 20.9% a year earlier; the headcount was 3,17,240 at year end.',
  ],
  [
    'infosys',
    'FY24',
    'Large deals',
    20,
    'Large deal total contract value reached $17.7 billion, of which 52% was net new business.',
  ],
  [
    'infosys',
    'FY24',
    'Dividend',
    9,
    'Including the final dividend of ₹20 per share and a special dividend of ₹8, the total dividend was ₹46 per share.',
  ],
  [
    'infosys',
    'FY24',
    'ESG',
    95,
    'Infosys has been carbon neutral since 2020 and 2.2 lakh trees were planted under the ESG programme.',
  ],
  [
    'infosys',
    'FY23',
    'Financial highlights',
    7,
    'Revenue grew 15.4% in constant currency to $18,212 million with an operating margin of 21.0%.',
  ],
  [
    'infosys',
    'FY23',
    'Talent',
    58,
    'Attrition for the year was 20.9% and the company added 29,219 employees during the year.',
  ],
  [
    'infosys',
    'FY23',
    'Generative AI',
    25,
    'Infosys Topaz is an AI-first set of services, solutions and platforms built on generative AI technologies.',
  ],
  [
    'infosys',
    'FY23',
    'Risk management',
    110,
    'Key risks include client concentration, currency volatility and cyber security threats to delivery centres.',
  ],
  [
    'infosys',
    'FY23',
    'Share buyback',
    15,
    'The Board approved a buyback of equity shares for ₹9,300 crore through the open market route.',
  ],
  [
    'tata-motors',
    'FY24',
    'Financial highlights',
    5,
    'Consolidated revenue was ₹4,37,928 crore and the company turned net debt free in its automotive business.',
  ],
  [
    'tata-motors',
    'FY24',
    'Electric vehicles',
    33,
    'Electric vehicle volumes rose to 73,833 units, with the Nexon EV and Punch EV leading passenger EV sales.',
  ],
  [
    'tata-motors',
    'FY24',
    'Jaguar Land Rover',
    40,
    'Jaguar Land Rover delivered record revenue of £29.0 billion with an EBIT margin of 8.5%.',
  ],
  [
    'tata-motors',
    'FY24',
    'Commercial vehicles',
    36,
    'Commercial vehicle domestic market share was 39.1% across trucks, buses and small commercial vehicles.',
  ],
  [
    'tata-motors',
    'FY24',
    'Safety',
    60,
    'Every passenger vehicle launched this year received a five-star safety rating in crash tests.',
  ],
  [
    'tata-motors',
    'FY23',
    'Financial highlights',
    4,
    'Consolidated revenue was ₹3,45,967 crore, up 24.2% over the previous year, and the loss narrowed.',
  ],
  [
    'tata-motors',
    'FY23',
    'Electric vehicles',
    31,
    'The company sold 50,043 electric vehicles and holds a leading share of the Indian passenger EV market.',
  ],
  [
    'tata-motors',
    'FY23',
    'Semiconductor shortage',
    38,
    'Semiconductor supply constraints limited Jaguar Land Rover wholesales during the first half of the year.',
  ],
  [
    'tata-motors',
    'FY23',
    'Dividend',
    6,
    'The Board did not recommend a dividend on ordinary shares for the year owing to accumulated losses.',
  ],
  [
    'tata-motors',
    'FY23',
    'Board of directors',
    80,
    'N Chandrasekaran continued as Chairman of the Board and Girish Wagh as Executive Director.',
  ],
];

export function makeChunk(company: string, fy: string, heading: string, page: number, text: string): Chunk {
  return {
    id: `${company}-${fy}-${sha1(`${company}|${fy}|${text}`).slice(0, 8)}`,
    company,
    fy,
    source: `${company}-${fy.toLowerCase()}.pdf`,
    heading,
    pages: [page, page],
    tokens: text.split(/\s+/).length,
    text,
  };
}

export function testChunks(): Chunk[] {
  return RAW.map(([company, fy, heading, page, text]) => makeChunk(company, fy, heading, page, text));
}

/** The chunk whose text starts with `prefix`. */
export function chunkStarting(chunks: readonly Chunk[], prefix: string): Chunk {
  const c = chunks.find((x) => x.text.startsWith(prefix));
  if (!c) throw new Error(`no test chunk starts with ${prefix}`);
  return c;
}
