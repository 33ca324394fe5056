/**
 * English stop words for the MiniSearch peer: function words (articles, pronouns, auxiliaries,
 * prepositions, conjunctions, question words, common contractions) that carry no topic of their own.
 * Compared against lower-cased tokens before stemming. Contractions appear with a straight
 * apostrophe; the tokenizer folds typographic apostrophes to it first.
 */
const WORDS = `
a an the
i me my mine myself we us our ours ourselves
you your yours yourself yourselves
he him his himself she her hers herself it its itself
they them their theirs themselves
this that these those
who whom whose which what when where why how
am is are was were be been being
have has had having do does did doing done
will would shall should can could may might must ought
and but or nor so yet if then else than because as until while
of at by for with about against between into through during before after
above below to from up down in out on off over under again further once
here there all any both each few more most other some such no not only own same
too very just also
i'm i've i'd i'll you're you've you'd you'll he's he'd he'll she's she'd she'll
it's it'd it'll we're we've we'd we'll they're they've they'd they'll
that's there's here's what's who's where's when's why's how's let's
isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't
won't wouldn't shan't shouldn't can't cannot couldn't mustn't
`;

export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean));
