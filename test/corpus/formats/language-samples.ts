/**
 * The texts language detection is measured on (docs/adr/0040): short questions of 8-20 words as a
 * question generator writes them, in English (about financial reports and product documentation),
 * French, German, Spanish, Hindi and Italian, and a few paragraphs. Written for rge, not taken from a
 * data set.
 */
export interface LanguageSample {
  language: string;
  text: string;
}

const en = [
  'What was the consolidated revenue from operations in FY24?',
  'How much did the company spend on research and development in 2023?',
  'What is the net profit margin reported for the fiscal year ended March 2024?',
  'Which segment contributed the largest share of total income last year?',
  'What was the dividend per share recommended by the board for FY23?',
  'How many employees did the bank have at the end of the financial year?',
  'What is the monthly price of the Team plan with annual billing?',
  'How many API requests per minute does the free tier allow?',
  'What is the maximum file size that can be uploaded to a workspace?',
  'Which regions are available for storing customer data?',
  'What were the total borrowings of the group as of 31 March 2024?',
  'By how much did operating expenses grow compared with the previous year?',
];
const fr = [
  'Quel était le chiffre d’affaires consolidé de la société en 2023 ?',
  'Combien coûte l’abonnement mensuel pour une équipe de dix personnes ?',
  'Quelle est la taille maximale d’un fichier que l’on peut importer ?',
  'Quel dividende par action le conseil a-t-il proposé pour l’exercice 2024 ?',
  'Dans quelles régions les données des clients sont-elles hébergées ?',
  'Combien de requêtes par minute la formule gratuite autorise-t-elle ?',
  'Quel a été le résultat net du groupe au premier semestre ?',
  'Comment peut-on exporter les factures au format PDF depuis le tableau de bord ?',
];
const de = [
  'Wie hoch war der konsolidierte Umsatz des Unternehmens im Geschäftsjahr 2023?',
  'Wie viele Mitarbeiter beschäftigte die Bank am Ende des Jahres?',
  'Was kostet der Teamtarif pro Monat bei jährlicher Abrechnung?',
  'Welche maximale Dateigröße kann in einen Arbeitsbereich hochgeladen werden?',
  'Wie viel Dividende je Aktie schlägt der Vorstand für das Jahr vor?',
  'In welchen Regionen werden die Kundendaten gespeichert und verarbeitet?',
];
const es = [
  '¿Cuál fue el beneficio neto consolidado de la empresa en el ejercicio 2023?',
  '¿Cuánto cuesta el plan para equipos con facturación anual?',
  '¿Cuántas solicitudes por minuto permite el nivel gratuito de la API?',
  '¿Qué tamaño máximo puede tener un archivo subido al espacio de trabajo?',
  '¿En qué regiones se almacenan los datos de los clientes?',
  '¿Cuántos empleados tenía el banco al cierre del año fiscal?',
];
const hi = [
  'वित्त वर्ष 2024 में कंपनी का कुल राजस्व कितना था?',
  'बैंक ने पिछले साल कितने नए ग्राहक जोड़े थे?',
  'बोर्ड ने प्रति शेयर कितना लाभांश देने की सिफारिश की है?',
  'मुफ्त योजना में प्रति मिनट कितने अनुरोध भेजे जा सकते हैं?',
];
const it = [
  'Qual è stato il fatturato consolidato della società nel 2023?',
  'Quanto costa il piano per i team con fatturazione annuale?',
  'Quante richieste al minuto consente il piano gratuito?',
  'In quali regioni vengono conservati i dati dei clienti?',
];

/** 40 short questions, each with its language (ISO 639-1). */
export const SHORT_QUESTIONS: readonly LanguageSample[] = [
  ...en.map((text) => ({ language: 'en', text })),
  ...fr.map((text) => ({ language: 'fr', text })),
  ...de.map((text) => ({ language: 'de', text })),
  ...es.map((text) => ({ language: 'es', text })),
  ...hi.map((text) => ({ language: 'hi', text })),
  ...it.map((text) => ({ language: 'it', text })),
];

/** Paragraphs as documents print them. */
export const PARAGRAPHS: readonly LanguageSample[] = [
  {
    language: 'en',
    text: 'Revenue from operations rose 12% to ₹2,41,300 crore, driven by higher volumes in the retail segment and a full year of the acquired telecom towers. Operating margins narrowed slightly as input costs increased, while finance costs fell after the company repaid ₹8,000 crore of long-term borrowings during the year.',
  },
  {
    language: 'en',
    text: 'Workspaces on the Team plan can store up to 500 GB of files. Each upload is limited to 2 GB; larger files must be split or sent through the bulk import tool. Administrators can change the retention period from the settings page at any time.',
  },
  {
    language: 'fr',
    text: 'Le chiffre d’affaires du groupe a progressé de 8 % pour atteindre 4,2 milliards d’euros. Cette croissance s’explique principalement par la hausse des ventes en Europe et par l’intégration des sociétés acquises au cours de l’exercice précédent.',
  },
  {
    language: 'de',
    text: 'Der Umsatz stieg im Berichtsjahr um 6 Prozent auf 3,1 Milliarden Euro. Das operative Ergebnis verbesserte sich vor allem durch geringere Energiekosten und eine höhere Auslastung der Werke in Deutschland und Polen.',
  },
  {
    language: 'es',
    text: 'Los ingresos de la compañía aumentaron un 9 % hasta alcanzar los 1.200 millones de euros, gracias al crecimiento de las ventas en América Latina y a la mejora de los márgenes en el negocio de servicios.',
  },
  {
    language: 'hi',
    text: 'वित्त वर्ष के दौरान कंपनी के परिचालन से राजस्व में बारह प्रतिशत की वृद्धि हुई। यह वृद्धि मुख्य रूप से खुदरा क्षेत्र में अधिक बिक्री और नई परियोजनाओं के कारण हुई।',
  },
  {
    language: 'it',
    text: 'I ricavi del gruppo sono cresciuti del 7% raggiungendo 2,5 miliardi di euro, trainati dalle vendite nel mercato domestico e dal contributo delle società acquisite durante l’esercizio.',
  },
];
