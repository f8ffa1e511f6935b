/**
 * Lines copied from the Indian PDFs in ../shared/corpus/indian as the project's extractor gives them
 * (src/corpus/pdf.ts, tables 'auto'), so that test/analysis/printed-figures.test.ts runs without
 * ../shared; test/analysis/printed-figures-shared.integration.test.ts checks that each is on the page named.
 */
const VRL = 'VRL_Logistics_Annual_Report_FY2023-24.pdf';
const INFOSYS = 'Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf';
const RANE = 'Rane_Holdings_Annual_Report_FY2024-25.pdf';
const LT = 'LT_Integrated_Annual_Report_FY2024-25_chunk001.pdf';
const ABC = 'Aditya_Birla_Capital_Annual_Report_FY2024-25_chunk001.pdf';

/** Excerpts: one template per page, a copied line a line, each page named by file and page number. */
export const EXCERPTS: readonly { file: string; page: number; text: string }[] = [
  // VRL_Logistics_Annual_Report_FY2023-24.pdf, page 23: Directors' report, summary of financial results
  {
    file: VRL,
    page: 23,
    text: `(₹in lakhs)
Total Operating Income | 2,90,971.85 | 266,286.66
From continuing operations | 10.18 | 18.80
From discontinued operations | (0.02) | 17.78
During the year the total operating income of the Company for the year was | ₹2,90,971.85 lakhs. As against the`,
  },
  // VRL_Logistics_Annual_Report_FY2023-24.pdf, page 64: management discussion
  {
    file: VRL,
    page: 64,
    text: 'FY 2023-24 marks a milestone with total gross GST collection of ₹ 20.18 lakh crore exceeding ₹20 lakh crore, a 11.7%',
  },
  // Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf, page 3: statement of profit and loss
  {
    file: INFOSYS,
    page: 3,
    text: `(In ₹ crore, except equity share and per equity share data)
2024 | 2023 | 2024 | 2023
Revenue from operations | 2.16 | 37,923 | 37,441 | 153,670 | 146,767
Basic (in ₹ per share) | 19.25 | 14.79 | 63.39 | 57.63`,
  },
  // Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf, page 12: notes
  {
    file: INFOSYS,
    page: 12,
    text: 'bonuses totaling up to ₹280 crore (approximately $34 million), subject to customary closing adjustments.',
  },
  // Rane_Holdings_Annual_Report_FY2024-25.pdf, page 4: financial highlights
  {
    file: RANE,
    page: 4,
    text: `CONSOLIDATED FINANCIAL HIGHLIGHTS | (₹ in Crores)
FINANCIAL YEAR | FY25 | FY24 | FY23 | FY 22 | FY 21
PAT | 220.85 | 149.61 | 87.31 | 35.06 | (60.35)
EPS** (₹) | 145.13 | 86.67 | 43.61 | 16.91 | (35.42)`,
  },
  // Rane_Holdings_Annual_Report_FY2024-25.pdf, page 30: management discussion
  { file: RANE, page: 30, text: 'of ₹22.1 lakh crores, marking a 9.4% year-on-year' },
  // LT_Integrated_Annual_Report_FY2024-25_chunk001.pdf, page 23: notice (the extractor reads its ₹ as ¢)
  { file: LT, page: 23, text: 'Company as on March 31, 2025 is ¢ 25,573.45 crore, the' },
  // LT_Integrated_Annual_Report_FY2024-25_chunk001.pdf, page 113: basis of preparation
  {
    file: LT,
    page: 113,
    text: 'Amounts in the financial statements are presented in Indian Rupee in crore [1 crore = 10 million] rounded off to two decimal places as',
  },
  // Aditya_Birla_Capital_Annual_Report_FY2024-25_chunk001.pdf, page 1: fair value hierarchy
  {
    file: ABC,
    page: 1,
    text: `As at 31st March 2025
(₹ crore)
Total Financial Liabilities | - | 34,176.32 | 77,429.64 | 1,11,605.96`,
  },
];
