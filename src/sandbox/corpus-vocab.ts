/** Word material for the generated corpus: deliberately multilingual (German, Japanese, emoji). */

export interface Person {
  name: string;
  email: string;
}

export const contacts: readonly Person[] = [
  { name: 'Jürgen Müller', email: 'juergen.mueller@beispiel.de' },
  { name: 'Zoë Faßbender', email: 'zoe@fassbender.example' },
  { name: '山田 太郎', email: 'taro.yamada@example.jp' },
  { name: '佐藤 花子', email: 'hanako@example.jp' },
  { name: 'Priya Raman', email: 'priya.raman@example.com' },
  { name: 'Olivier Lefèvre', email: 'olivier@exemple.fr' },
  { name: 'Sam O’Neill', email: 'sam.oneill@example.org' },
  { name: 'Ana Łukasiewicz', email: 'ana.l@przyklad.example' },
  { name: 'Björn Ødegård', email: 'bjorn@eksempel.example' },
  { name: 'Maria 🌻 Gonzalez', email: 'maria.g@example.net' },
  { name: 'David Chen', email: 'dchen@example.com' },
  { name: 'Team Calendar', email: 'calendar@work.example' },
];

export const newsletters: readonly Person[] = [
  { name: 'Weekly Digest', email: 'digest@news.example' },
  { name: 'Shop Angebote', email: 'angebote@shop.example' },
  { name: 'テックニュース', email: 'news@tech.example.jp' },
];

export const spammers: readonly Person[] = [
  { name: 'Prize Department', email: 'winner@prize-claims.example' },
  { name: 'Crypto Gains 🚀', email: 'gains@coin-offer.example' },
];

export const topics: readonly string[] = [
  'Quarterly report',
  'Grüße aus München',
  'Besprechung am Donnerstag',
  '会議の議事録',
  '来週の予定について',
  '🎉 Party on Friday',
  'Invoice for March',
  'Rechnung Nr. 4711',
  'Trip to Kyoto ✈️',
  'Budget review',
  'Quick question about the contract',
  'Fotos vom Wochenende',
  'Release plan v2.3',
  'Lunch?',
  'Your application',
  'Übergabe des Projekts',
  'Feedback on the draft',
  'Café meeting ☕',
];

export const newsletterTopics: readonly string[] = [
  'This week in tech',
  'Nur heute: 20 % Rabatt',
  '今週のおすすめ記事',
  'Your monthly summary 📈',
];

export const spamTopics: readonly string[] = [
  'You are a lottery winner!!!',
  'Cheap meds, no prescription',
  'Double your bitcoin today 🚀',
];

export const sentences: readonly string[] = [
  'Thanks for the update, that sounds good to me.',
  'Could you send me the latest numbers before Monday?',
  'I attached the document we talked about.',
  'Let me know if anything is unclear.',
  'Ich melde mich morgen noch einmal dazu.',
  'Die Unterlagen liegen im gemeinsamen Ordner.',
  'Vielen Dank für die schnelle Rückmeldung!',
  'お忙しいところ恐縮ですが、ご確認をお願いいたします。',
  '資料を添付しましたのでご覧ください。',
  'The meeting moved to 3 pm, same room.',
  'We should plan the next milestone soon 🚀',
  'On a side note, the coffee machine is fixed ☕',
  'Please review the numbers in section two.',
  'Können wir das nächste Woche besprechen?',
  'See you at the café tomorrow.',
];

export const labelNames: readonly string[] = ['Work', 'Family', 'Receipts', 'Travel', 'Later'];

export const attachmentKinds: ReadonlyArray<{ ext: string; mime: string; base: string }> = [
  { ext: 'pdf', mime: 'application/pdf', base: 'Rechnung' },
  { ext: 'docx', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', base: 'Entwurf' },
  { ext: 'xlsx', mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', base: 'budget' },
  { ext: 'zip', mime: 'application/zip', base: 'archive' },
  { ext: 'jpg', mime: 'image/jpeg', base: 'IMG' },
  { ext: 'csv', mime: 'text/csv', base: 'export' },
  { ext: 'ics', mime: 'text/calendar', base: 'invite' },
  { ext: 'txt', mime: 'text/plain', base: 'notes' },
];
