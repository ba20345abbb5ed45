"""Classbridge: a learning platform for schools and colleges, K-12 and further education (tuning desk).

Writers are teachers (short, between lessons, often from a phone), school IT and network managers (technical,
paste sync logs and error codes), heads of department and SENCos, school office and data staff, parents (not
technical, sometimes upset) and older students. International schools write in a second language. Areas: roster
sync from the SIS / MIS, Clever and ClassLink, Google and Microsoft sign-in, assignments and hand-ins, the
gradebook and grade export, quizzes and accommodations, originality checks, parent accounts and the weekly parent
email, the student and teacher apps, video lessons, licences and the new-school-year rollover.
"""

PRODUCT = "Classbridge"

STYLE = {
    "lengths": {"oneline": 0.2, "short": 0.35, "medium": 0.3, "long": 0.15},
    "greeting": 0.6,
    "signoff": 0.6,
    "context": (0, 2),
    "rambles": (0, 1),
    "typo_rate": 0.018,
    "careless": 0.5,
    "lowercase": 0.15,
    "no_apostrophes": 0.2,
    "nonnative": 0.75,
    "error_quote": 0.4,
    "hours": (6, 22),
}

STAFF = [("ellie", "Ellie Danforth"), ("sunil", "Sunil Varma"), ("grace", "Grace Nwosu"),
         ("ben", "Ben Castellano"), ("hana", "Hana Sato")]

CUSTOMERS = [
    {"name": "Ashcombe Academy", "plan": "School Plus", "seats": 1150, "region": "UK", "contact": "Rachel Dunmore",
     "sso": "Microsoft", "writers": ["Tom Barrow", "Jess Kowalczyk", "Dana Whitfield"],
     "notes": "11-18 academy in Somerset, Arbor MIS with nightly roster sync. Rachel is the network manager; Tom is "
              "head of science; Jess runs the school office. Dana Whitfield is a parent who has written to us "
              "directly before."},
    {"name": "Harlow Fields Primary", "plan": "School", "seats": 320, "region": "UK", "contact": "Linda Greaves",
     "sso": "Google", "writers": ["Sam Patel"],
     "notes": "Two-form entry primary. Uses Classbridge for homework, reading logs and the weekly parent email. "
              "Linda is the school business manager and not technical; Sam teaches Year 6 and looks after the iPads."},
    {"name": "Northbrook Learning Trust", "plan": "Trust", "seats": 6400, "region": "UK", "contact": "Gareth Pryce",
     "sso": "Microsoft", "writers": ["Amina Yusuf", "Colin Marsh"],
     "notes": "Multi-academy trust, six secondaries and two primaries. Mix of SIMS and Arbor across schools; "
              "term-based timetable sessions. Gareth is trust IT lead; Amina is the trust data manager; Colin is "
              "head of maths at Northbrook High."},
    {"name": "St Brendan's College", "plan": "School", "seats": 780, "region": "IE", "contact": "Fionnuala Brady",
     "sso": "Google", "writers": ["Cian Murphy"],
     "notes": "Secondary school in Galway. Fionnuala is deputy principal, Cian the IT coordinator (also teaches "
              "computer science). Google Workspace with age-based access settings for students."},
    {"name": "Riverside Unified School District", "plan": "District", "seats": 14200, "region": "US",
     "contact": "Marcus Bell", "sso": "Clever", "writers": ["Karen Liu", "Denise Alvarez", "Jordan Pike"],
     "notes": "California district, 19 schools. PowerSchool SIS, rostered through Clever, grade passback nightly. "
              "Marcus is the edtech coordinator, Karen the SIS admin, Denise teaches high school English. Jordan "
              "is an 11th grade student who emails support himself."},
    {"name": "Maple Grove Middle School", "plan": "School", "seats": 640, "region": "US", "contact": "Jenna Hollis",
     "sso": "Google", "writers": ["Brian Kowalski", "Tanya Brooks"],
     "notes": "Grades 6-8, Infinite Campus with ClassLink rostering. Jenna is the tech integration specialist; Brian "
              "teaches 7th grade science; Tanya is the front office secretary."},
    {"name": "Kingsgate College", "plan": "College", "seats": 5200, "region": "UK", "contact": "Derek Oyelaran",
     "sso": "Microsoft", "writers": ["Helen Fairbairn", "Ollie Grant"],
     "notes": "General FE college, 16-19 study programmes and adult courses; two-year BTEC and A level groups. "
              "Derek is MIS manager, Helen curriculum lead for health and social care. Ollie is a level 3 student."},
    {"name": "Colegio Internacional Alameda", "plan": "School", "seats": 900, "region": "ES",
     "contact": "Lucía Ferrer", "sso": "Google", "writers": ["Javier Morales"], "voice": "es",
     "notes": "Bilingual international school near Valencia, British curriculum taught in English and Spanish. "
              "Lucía is the ICT coordinator; Javier teaches maths."},
    {"name": "Internationale Schule Rheinau", "plan": "School", "seats": 720, "region": "DE",
     "contact": "Matthias Krüger", "sso": "Microsoft", "writers": ["Sabine Vogt"], "voice": "de",
     "notes": "IB world school near Cologne. Matthias runs IT and is very precise; Sabine works in the secretariat "
              "and handles parent accounts."},
    {"name": "Kraków Bilingual Academy", "plan": "School", "seats": 540, "region": "PL",
     "contact": "Katarzyna Nowicka", "sso": "Google", "writers": ["Piotr Zieliński"], "voice": "pl",
     "notes": "Private bilingual secondary. Katarzyna is deputy head for teaching and learning; Piotr is the IT "
              "technician. Many parents write to the school in Polish."},
    {"name": "Escola Americana de Campinas", "plan": "School Plus", "seats": 1050, "region": "BR",
     "contact": "Rafael Souza", "sso": "Google", "writers": ["Mariana Costa"], "voice": "pt",
     "notes": "American-curriculum K-12 school in Brazil, uses the weekly parent email heavily. Rafael is "
              "technology director, Mariana the high school coordinator."},
    {"name": "Westmere Grammar", "plan": "School Plus", "seats": 1400, "region": "AU", "contact": "Priya Nair",
     "sso": "Microsoft", "writers": ["Jack Dunn", "Mel Gordon"],
     "notes": "Independent K-12 school in Brisbane. Priya is eLearning coordinator; Jack is head of HPE and records "
              "a lot of video lessons. Mel Gordon is a parent of three students here."},
    {"name": "Oakridge Christian Academy", "plan": "School", "seats": 410, "region": "US",
     "contact": "Deborah Simms", "sso": "Google",
     "notes": "Small private K-12 school in Tennessee, no SIS connection: students are uploaded from a spreadsheet. "
              "Deborah is the registrar and office manager and does the Classbridge admin herself."},
    {"name": "Thornbury Sixth Form College", "plan": "College", "seats": 1900, "region": "UK",
     "contact": "Nadia Rahman", "sso": "Microsoft", "writers": ["Phil Hughes", "Aisha Bello"],
     "notes": "Sixth form college, A levels only. Nadia is exams and data officer; Phil is head of computing and "
              "the Classbridge admin. Aisha is a Year 13 student rep. Heavy use of originality checks."},
    {"name": "Cedar Hollow School District", "plan": "District", "seats": 5300, "region": "US",
     "contact": "Ray Jennings", "sso": "Microsoft", "writers": ["Laura Meeks", "Hannah Ortiz"],
     "notes": "Ohio district, Skyward SIS through ClassLink. Ray is IT director; Laura teaches 4th grade; Hannah "
              "Ortiz is a parent who chairs the PTA."},
    {"name": "Lycée International des Tilleuls", "plan": "School", "seats": 860, "region": "FR",
     "contact": "Émilie Laurent", "sso": "Microsoft", "writers": ["Julien Moreau"], "voice": "fr",
     "notes": "International lycée with British and American sections. Émilie is the digital learning lead; "
              "Julien teaches history in the British section."},
]

SLOTS = {
    "class": ["10B/Sc1", "9H2 History", "7X Maths", "AP Biology P3", "English 11 Period 4", "12C Chemistry",
              "8G1 Geography", "BTEC Sport L3 Group A", "Spanish 2 Period 6", "Year 6 Oak"],
    "student": ["Maya Collins", "Ethan Brooks", "Zainab Ali", "Oscar Nguyen", "Lily Thompson", "Noah Ferreira",
                "Ava Kaczmarek", "Reuben Adeyemi", "Sofia Marin", "Harvey Chambers"],
    "subject": ["maths", "science", "English", "history", "geography", "French", "computing"],
    "assignment": ["the Macbeth essay", "the enzymes lab report", "the Unit 3 homework", "coursework draft 2",
                   "the source analysis task", "the persuasive writing final", "the Year 10 history essay"],
    "quiz": ["Unit 4 end-of-topic quiz", "periodic table quiz", "week 6 vocab check", "online mock paper 1",
             "chapter 7 quiz"],
    "device": ["school iPad", "Chromebook", "Android phone", "iPhone", "Windows laptop"],
    "ver": ["5.13.0", "5.13.0", "5.12.4"],
}

GREETINGS = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Hello Classbridge team,", "Hi {staff},",
             "Dear Support,", "hi,", "To whom it may concern,"]
SIGNOFFS = ["Thanks,\n{first}", "Kind regards,\n{name}\n{company}", "Many thanks, {first}", "Best,\n{name}",
            "Thanks\n{name} | {company}", "Thanks in advance\n{first}", "Sent from my iPhone", "thanks",
            "Regards,\n{name}"]
VOICE_GREETINGS = {
    "es": ["Hello,", "Good morning,", "Hello, good afternoon,"],
    "de": ["Dear Classbridge team,", "Dear Sir or Madam,", "Hello,"],
    "pl": ["Good morning,", "Hello,", "Dear Support,"],
    "pt": ["Hello, good morning!", "Hi, good afternoon", "Hello team,"],
    "fr": ["Hello,", "Good morning,", "Dear Classbridge support,"],
}
VOICE_SIGNOFFS = {
    "es": ["Thank you very much,\n{name}", "Best regards\n{first}", "Thanks in advance, regards\n{name}\n{company}"],
    "de": ["Kind regards\n{name}", "With best regards\n{name}\nIT, {company}"],
    "pl": ["Best regards,\n{name}", "Thank you in advance\n{first}"],
    "pt": ["Thanks a lot!\n{first}", "Best regards,\n{name}\n{company}"],
    "fr": ["Best regards,\n{name}", "Thank you in advance for your help.\n{name}"],
}
CONTEXT = [
    "I've got about ten minutes before my next lesson so sorry if this is brief.",
    "Parents' evening is on Thursday so I really need this right before then.",
    "For context we have around {nn} teaching groups on Classbridge this year.",
    "I'm covering for our network manager who's off this week.",
    "Mocks start on Monday so the timing isn't great.",
    "I'm writing this from my phone on break duty.",
    "I'm not very technical so apologies if I've got the terms wrong.",
    "Our head has asked me to chase this today.",
    "We only moved to Classbridge this summer.",
    "This is the third time this week someone has come to me about it.",
    "Reports go home at the end of the month.",
]
TRIED = [
    "I've logged out and back in and tried a different browser.",
    "We've tried it on a Chromebook, an iPad and a laptop.",
    "I checked the help centre but couldn't find anything that matches.",
    "Our IT technician says nothing has changed on our side.",
    "I've cleared the cache and reinstalled the app, no difference.",
    "I asked a colleague to try in her class and she gets the same.",
]
ASKS = ["Can you take a look?", "Could you advise what we need to do?", "Please can someone look into this urgently.",
        "Is this something on your side?", "What do I need to do?", "Let me know if you need anything else.",
        "can you fix it please", "Is there a workaround for now?"]
ERROR_INTROS = ["It says \"{error}\"", "The error is: {error}", "The message on screen is \"{error}\".",
                "From the log: {error}", "A student sent me a photo of the screen, it says \"{error}\"."]
FOLLOWUP_WAIT = ["Hi, any update? Students are asking.", "Chasing this please, it's still happening.",
                 "hello?? still not fixed", "Is anyone looking at this? Reports go home next week.",
                 "Any news? I've had another parent on the phone about it."]
FOLLOWUP_THANKS = ["That's sorted it, thank you!", "Brilliant, thanks {staff}.", "Thank you, it's working now.",
                   "Great, thanks for the quick reply.", "thanks!!", "Thanks, I'll let the department know."]
REPLY_INFO = ["Screenshot attached.", "It's {class}.", "One of them is {student}.",
              "Yes, happy for you to log in and have a look.", "It's on a {device}, app version {ver}.",
              "It's every class in the department as far as I can tell."]
RAMBLES = [
    "It's been a very long week, we've had mocks and a flu bug going round the staff room, so apologies if I'm "
    "not making complete sense.",
    "On the whole people here like Classbridge, which is why I want this sorted before anyone loses faith in "
    "it.",
    "It's been a busy start to the year: new timetable, new head, and now this, so I've spent most of the "
    "evening on it instead of marking.",
    "Our previous IT manager set all of this up and left at Easter, so I'm learning as I go.",
]

STAFF_OPENERS = ["Hi {first},", "Hi {first}, thanks for getting in touch.",
                 "Hello {first}, thanks for the detail, that really helps.",
                 "Hi {first}, sorry for the trouble with this."]
STAFF_SIGNOFFS = ["Best wishes,\n{staff}", "Thanks,\n{staff} | Classbridge Support", "Kind regards,\n{staff}", ""]
STAFF_ASKS = [
    "Could you send me the name of the class and one affected student (first name and initial is fine)?",
    "Is this happening in every class, or only some?",
    "Could you send a screenshot of what the student sees, with names blurred if you prefer?",
    "Which device and browser, or which app version, is this on?",
    "Would you be happy for us to view your school's admin console to look into this?",
]
STAFF_HOLDING = [
    "Thanks for the detail. I've passed this to our engineering team and will update you as soon as I hear back.",
    "We're looking into this now and will come back to you today.",
    "I can reproduce this on your account and I've escalated it. I'll keep you posted.",
    "Thanks, I've added your school to the issue our developers are working on.",
]
INTERNAL_GENERIC = ["Asked for the class and an example student.", "School granted support access to admin console.",
                    "Checked sync history and school settings, nothing obvious yet.",
                    "Sent the usual questions; waiting on the school."]
TAG_EXTRAS = ["bug", "question", "escalated", "how-to", "parent-contact", "in-lesson"]
VAGUE_TITLES = ["Classbridge problem", "Help please", "urgent", "Issue with Classbridge", "not working",
                "Question"]

CLUSTERS = [
    {
        "key": "roster-blank-end-date",
        "cause": "The 1 September update of the SIS roster connector treats an enrolment with a blank end date as "
                 "ended: students who joined or changed class mid-year are removed from their classes at the "
                 "nightly sync",
        "tags": ["roster-sync", "sis", "classes"],
        "priority": ["high", "normal", "high"],
        "titles": ["New students missing from my class", "Roster sync removing students",
                   "Students disappearing from classes overnight", "Class lists don't match our MIS",
                   "Mid-year joiners not syncing"],
        "symptoms": [
            "I've got a new girl in {class} who started on {weekday} and she still isn't on my class list in "
            "Classbridge. She's on the register in the MIS, so the office have definitely put her in.",
            "Two of my students have vanished from {class}. They were there last week, they've handed work in, "
            "and now they're just not on the list. Their old submissions don't show in the gradebook either.",
            "Our nightly sync log shows dozens of enrolments skipped every night since the start of September. All "
            "of them are students who joined after the first day of term or moved between sets.",
            "A parent emailed to say her son can't see any maths homework. When I look he's not in any maths class "
            "in Classbridge, but he moved from set 3 to set 2 in October and he's in set 2 in the SIS.",
            "The class sizes in Classbridge are lower than in our SIS for about a third of our sections. I exported "
            "both and compared: every missing student has a blank end date on their enrolment.",
            "student here, year 12. i joined the college late and i still cant see my chemistry class on "
            "classbridge so i keep missing the homework. my teacher says im not on her list",
            "If I add the student to the class by hand it works for the day, and then the next morning they're "
            "gone again.",
            "Our attendance officer noticed that new arrivals can log in fine but their homepage is empty, no "
            "classes at all.",
        ],
        "details": [
            "Students who've been here since September are fine, it's only the ones who came later or changed group.",
            "We haven't changed anything in the MIS setup and the sync says it completed.",
            "I ran Sync now from the admin page and it made no difference.",
            "It's around {nn} students across the school as far as I can tell.",
            "Our data manager checked and the enrolments are correct in the SIS: start date filled in, end date "
            "left empty as usual.",
        ],
        "errors": ["enrolment skipped: inactive (endDate=null)", "WARN enrolments: {nn} skipped (inactive)",
                   "Sync completed with warnings: {nn} enrolments skipped"],
        "staff_cause": [
            "This is a bug in our roster connector. The 1 September update started treating an enrolment with no "
            "end date as one that has already ended, so students who joined or changed class mid-year (whose "
            "enrolments have a blank end date in your SIS) are removed at the nightly sync.",
            "The students being dropped all have enrolments without an end date. Since our connector update at the "
            "start of September, the sync reads a blank end date as 'ended' and takes them out of the class, which "
            "is also why adding them by hand only lasts until the next night.",
            "Nothing is wrong with your SIS data. Our sync is wrongly marking open-ended enrolments as inactive, and "
            "those are exactly your mid-year joiners and set changes.",
        ],
        "internal": [
            "Blank endDate -> inactive regression from the 1/9 connector release, ROST-882. Re-ran sync with the "
            "patched mapping for this school.",
            "Another ROST-882: mid-year joiners dropped. Work is soft-archived, not deleted; comes back with the "
            "enrolments.",
        ],
        "fixes": [
            "We've deployed the fix and re-run your sync. The missing students are back in their classes, and the "
            "work they handed in before they were removed has come back with them.",
            "The patched connector goes out tonight. Please don't fill in end dates in the SIS as a workaround, as "
            "that would only need undoing; the students will be restored automatically by tonight's sync.",
            "I've re-synced your school with the corrected connector. Submissions and grades of the students who "
            "were dropped were kept, so they reappear in the gradebook now they're enrolled again.",
        ],
        "asks": ["Could you give me the name or SIS ID of one student who's missing and the class they should be in?",
                 "Could you send the last few lines of the log from Admin > Integrations > Sync history?"],
        "near": ["student-not-in-sis-class", "sync-runs-overnight"],
        "near_clusters": ["clever-id-duplicates"],
    },
    {
        "key": "grade-export-unweighted",
        "cause": "Since release 26.9, grade export to the SIS sends each student's unweighted average instead of the "
                 "category-weighted grade for gradebooks that use weighted categories",
        "tags": ["gradebook", "grade-export", "sis"],
        "priority": ["high", "normal", "high"],
        "titles": ["Grades in SIS don't match Classbridge", "Exported grades are wrong",
                   "Grade passback sending different percentages", "Report grades lower than gradebook",
                   "Weighted grades not exporting"],
        "symptoms": [
            "The grades that went across to PowerSchool for {class} don't match what Classbridge shows. One student "
            "has 81% in my gradebook and 72% in the SIS.",
            "Parents are emailing me because the grade on the district parent portal is different from the one "
            "their child sees in Classbridge. I haven't changed anything.",
            "As head of department I check the progress grades in our MIS before reports go out. For every class in "
            "my department that uses weighted categories the MIS figure is off, some up and some down.",
            "The export says it completed with no errors but the numbers in the SIS look like a plain average of "
            "everything, as if homework counts as much as tests.",
            "My classes with categories turned off export fine. The ones where tests are 60% and homework 20% don't.",
            "hi, my grade on the school portal says C but on classbridge i have a B. my teacher said its a "
            "classbridge thing?? reports are next week",
            "Our interim reports were generated from the SIS and now I've got {nn} teachers telling me the grades "
            "on them are wrong. They were all exported from Classbridge on {weekday}.",
        ],
        "details": [
            "It only started this term. Last year's exports matched.",
            "Exporting again gives the same wrong numbers.",
            "The category weights are set up correctly in the gradebook settings, I've checked twice.",
            "Report cards are due out at the end of the month so this is urgent for us.",
        ],
        "errors": ["Export completed: {nn} grades sent, 0 errors", "Grade export finished successfully"],
        "staff_cause": [
            "Since our 26.9 release, grade export sends each student's simple average of all assignments rather than "
            "the weighted grade, for gradebooks that use weighted categories. Classbridge shows the right grade; "
            "it's the value sent to the SIS that's wrong.",
            "This is a bug in grade export: when a gradebook has weighted categories, the export ignores the weights "
            "and sends the unweighted percentage. That's why only your weighted classes are off and why the export "
            "reports no errors.",
            "The gradebook is calculating correctly, but the figure sent to your SIS skips the category weighting (a "
            "regression in our September release), so it reads as if every assignment counts the same.",
        ],
        "internal": [
            "GRD-1416 weighted export regression. Customer's unweighted classes fine. Fix in 26.10.2; re-export "
            "needed.",
            "Weighted-category export bug again. Checked gradebook calc: correct. Export payload uses raw mean.",
        ],
        "fixes": [
            "The fix is live. Please export grades again for the affected classes (Gradebook > Export to SIS > "
            "Export all); the new values overwrite the ones sent before.",
            "A fix is going out on {weekday}. If your reports can't wait, turn on 'Export the displayed grade' under "
            "Gradebook settings > Export, which sends exactly what the gradebook shows.",
        ],
        "near": ["unpublished-not-exported", "sis-grading-scale"],
    },
    {
        "key": "quiz-close-time-caps-extra-time",
        "cause": "Since the quiz player update in 26.8, a quiz's closing time ends every attempt and overrides "
                 "students' extra-time accommodations: students with extra time are submitted with everyone else",
        "tags": ["quizzes", "accessibility", "accommodations"],
        "priority": ["high", "normal", "high"],
        "titles": ["Extra time not working on quiz", "Student with 25% extra time cut off",
                   "Quiz auto-submitted early for SEN students", "Accommodations ignored in timed quiz",
                   "Timer the same for everyone"],
        "symptoms": [
            "Three of my students have 25% extra time set on their profiles but the {quiz} submitted their answers "
            "at exactly the same moment as everyone else's.",
            "I'm the SENCo. We've had two complaints this week from parents whose children have access arrangements "
            "for extra time, saying the online quiz ended before they'd finished.",
            "My daughter is dyslexic and is supposed to get extra time. She was halfway through a question when it "
            "said time's up and took her answers. She came home in tears. This is not acceptable.",
            "The timer on one boy's screen showed more time than his classmates at the start, but the quiz still "
            "closed on him when the quiz window ended.",
            "If I set a quiz with just a time limit and no closing time, the extra time works. As soon as I add a "
            "closing time, students with extra time get cut off at the closing time.",
            "In the results, the students with accommodations all have the same submitted time, which is when I "
            "set the quiz to close. Most of them left the last questions blank.",
            "teacher view says 'extended time 1.5x' next to his name but he got kicked out at the same time as the "
            "rest of the class",
        ],
        "details": [
            "The accommodation is set on the student's profile in Classbridge, not on each quiz.",
            "It's happened in at least two departments.",
            "I've had to let them resit on paper, which defeats the point.",
            "The quiz was a 40 minute one set to close at the end of period {n}.",
        ],
        "errors": ["Time's up! Your answers have been submitted.", "This quiz closed at {time}"],
        "staff_cause": [
            "Since our quiz player update, a quiz's closing time ends every attempt, including attempts that have "
            "extra time from an accommodation. The extra time is added to the timer, but the closing time then "
            "cuts it off.",
            "This is a bug on our side: the 'Closes at' time overrides extra-time accommodations, so students with "
            "extra time are submitted at the closing time with everyone else. Quizzes with only a time limit "
            "aren't affected.",
            "The accommodations on the profiles are right. The problem is that the quiz's closing time wins over "
            "the extended timer since the 26.8 player update, which it shouldn't.",
        ],
        "internal": [
            "QZ-733: closes_at hard cutoff ignores accommodation multiplier. Affects quizzes with both time limit and "
            "close time.",
            "Another QZ-733 report. Advised reopening attempts for affected students.",
        ],
        "fixes": [
            "The fix is deployed: attempts with extra time now run past the closing time by the extra amount. For "
            "the students who were cut off, open the quiz results, select them and choose 'Reopen attempt'.",
            "Until the fix is out, leave 'Closes at' empty on timed quizzes and use only the time limit; extra time "
            "works normally then. You can reopen the affected attempts from the results page.",
        ],
        "near": ["accommodation-added-late", "connection-lost-autosubmit"],
    },
    {
        "key": "originality-drive-docs-pending",
        "cause": "Originality checks never complete for Google Docs handed in through the Drive picker: since "
                 "Google's Drive export permission change on 8 September the checker can't fetch the document and "
                 "the report stays pending",
        "tags": ["originality", "plagiarism", "google-drive"],
        "titles": ["Plagiarism report stuck on pending", "Similarity score not showing",
                   "Originality check never finishes", "Can't release grades - originality pending",
                   "Google Docs submissions not being checked"],
        "symptoms": [
            "The originality reports for {assignment} have said 'Pending' since {weekday}. Usually they come back "
            "within ten minutes.",
            "About half of my Year 11 essays have a similarity score and the other half just have a grey clock icon. "
            "The ones with scores were uploaded as Word files.",
            "Our department policy is that coursework marks aren't released until the originality report is in. "
            "We can't release anything because the reports never arrive.",
            "I clicked 'Run check again' on a few of the pending ones and they went straight back to pending.",
            "Students who handed in from Google Drive don't have a plagiarism report at all, it just spins. Anything "
            "uploaded from a computer is fine.",
            "For moderation I need the similarity reports for the whole cohort and I can only download them for "
            "some students.",
            "our IT guy says the check log has 403 errors from google for every doc that came from drive",
        ],
        "details": [
            "It's every class in the department, not just mine.",
            "The students handed in Google Docs straight from their school Drive.",
            "It's been like this for about a week.",
            "Nothing has changed in our Google admin console as far as I know.",
        ],
        "errors": ["Originality report pending", "Could not retrieve file from Google Drive (403 cannotExportFile)",
                   "Originality: source fetch failed, retrying"],
        "staff_cause": [
            "Google changed how Drive lets apps export documents on 8 September, and since then our originality "
            "checker can't fetch Google Docs handed in through the Drive picker. The request fails quietly and the "
            "report stays on pending.",
            "The pending reports are all Google Docs handed in from Drive. Since Google's Drive export change, our "
            "checker gets a permission error when it tries to download them, so the check never starts.",
            "It's on our side: files uploaded from a computer are checked as normal, but the checker can't read "
            "Google Docs from Drive since a Google permission change, and we didn't show the error.",
        ],
        "internal": [
            "ORIG-310 Drive export 403 (cannotExportFile) since Google change 08/09. Fix = check the hand-in snapshot "
            "PDF. Requeue after deploy.",
            "Same Drive-doc pending issue. Requeued after fix for this school.",
        ],
        "fixes": [
            "We now check the copy of each Google Doc that Classbridge keeps at the moment of hand-in, so no Drive "
            "access is needed. I've requeued your pending reports and they should all come through within the hour.",
            "Our fix is being deployed this week. If you need a report sooner, ask the student to download the doc "
            "as a .docx and hand that in as well; uploaded files are checked straight away.",
        ],
        "near": ["originality-not-enabled", "self-match-draft"],
    },
    {
        "key": "digest-siblings-one-child",
        "cause": "Since the parent-account merge in the October release, the weekly parent summary is built once per "
                 "parent email with only the first linked child: parents of two or more children hear about one",
        "tags": ["parents", "weekly-email", "notifications"],
        "titles": ["Parents only getting weekly email for one child", "Weekly summary missing second child",
                   "Parent email only shows one of my kids", "Siblings missing from parent summary",
                   "Weekly parent report incomplete"],
        "symptoms": [
            "I have twins in Year 8 and since half term the Friday email only tells me about Ella. Nothing about Sam "
            "at all, and I know he has missing homework because his teacher rang me.",
            "We've had several calls to the school office from parents with more than one child here, saying the "
            "weekly Classbridge email only mentions one of them.",
            "The weekly summary used to list both of my sons in one email, each with their own section. Now it's "
            "just the older one.",
            "In the parent app I can switch between both children and see everything. It's only the email that "
            "leaves one out.",
            "A parent complained that we weren't telling her about her daughter's overdue work. She gets the weekly "
            "email but it only ever covers her son, who's in Year 11.",
            "Families with children at two schools in our trust now get one email instead of two, and it only "
            "covers one of the children.",
        ],
        "details": [
            "Parents with only one child seem to get the email as normal.",
            "It started around the October half term.",
            "Both children are linked to the same parent account, I checked.",
            "I sent a test summary from the admin page and it has the same problem.",
        ],
        "staff_cause": [
            "When we merged duplicate parent accounts in the October release, the weekly summary started being "
            "built once per email address with only the first child linked to it. Parents of more than one child "
            "are getting a summary for one of them only.",
            "This is our bug: the weekly summary job now sends one email per parent and includes only one child, so "
            "siblings are left out. The Family app isn't affected because it reads the links directly.",
            "Parents with several children are only getting one child's summary because of a change in how we group "
            "parent accounts for the weekly email.",
        ],
        "internal": [
            "PAR-457 digest dedupe keeps first child only. Fix: aggregate children per recipient. Affects any parent "
            "with 2+ links since 26.10.",
            "Another sibling digest complaint. Linked to PAR-457.",
        ],
        "fixes": [
            "The fix is live from this Friday's emails: parents get one email with a section for each child, as "
            "before. Nothing needs changing in your settings.",
            "We've corrected the summary job. If you want to send this week's summary again, go to Admin > Parents "
            "> Weekly summary and choose 'Resend this week'.",
        ],
        "near": ["parent-email-bouncing", "second-child-not-linked"],
    },
    {
        "key": "ios-heic-upload",
        "cause": "Student iOS app 5.13.0 uploads camera photos in HEIC without converting them, and the submission "
                 "service rejects HEIC: photo hand-ins from iPhones and iPads fail",
        "tags": ["mobile-app", "ios", "submissions"],
        "titles": ["Can't hand in photos from iPad", "Upload keeps failing in student app",
                   "Photo submissions not going through", "Students on iPhone can't submit work",
                   "Hand in button does nothing"],
        "symptoms": [
            "Half my class did the worksheet on paper and tried to photograph it in the app to hand in. The iPad "
            "ones all fail: the upload bar goes to the end and then it says something went wrong.",
            "my son has been trying to hand in his homework for an hour on his iphone and it keeps saying upload "
            "failed. he is getting really stressed, it is due tonight",
            "Students using the school iPads can't attach photos to submissions since the app updated on {weekday}. "
            "On a Chromebook or the website it works.",
            "I'm getting submissions from iPhone users that are marked as handed in but have no attachment, or a "
            "file that won't open.",
            "The Android students are fine. It's only people on Apple devices taking a photo with the camera button "
            "in the app.",
            "If the student takes a screenshot of the photo and uploads that instead, it goes through. Which is a "
            "silly workaround to explain to Year 7s.",
            "Our iPad trolley for Year 5 was working all last term. Now photo uploads of maths work fail every time.",
        ],
        "details": [
            "The app version on the iPads is {ver}.",
            "Uploading a PDF from the iPad works, it's just photos.",
            "We've tried deleting and reinstalling the app.",
            "The Wi-Fi is fine, other uploads work.",
        ],
        "errors": ["Upload failed: unsupported image type (image/heic)",
                   "Something went wrong. Please try again. (UPL-415)"],
        "staff_cause": [
            "Version 5.13.0 of the student app stopped converting iPhone and iPad camera photos from HEIC to JPEG "
            "before uploading them, and our servers don't accept HEIC. That's why photo uploads fail on Apple "
            "devices only.",
            "This is a bug in the latest iOS student app: photos taken with the in-app camera are sent in Apple's "
            "HEIC format, which the submission service rejects. Android and the website send JPEGs, so they work.",
            "The failures come from the photo format: since the 5.13.0 update the iOS app uploads HEIC images without "
            "converting them, and they're refused on our side.",
        ],
        "internal": [
            "MOB-1290 HEIC passthrough in iOS 5.13.0. 5.13.1 in App Store review. Workaround: Settings > Camera > "
            "Formats > Most Compatible.",
            "HEIC again (UPL-415). Sent the Most Compatible workaround.",
        ],
        "fixes": [
            "Version 5.13.1 of the student app fixes this and is now in the App Store. If your iPads are managed, "
            "you may need to push the update from your MDM.",
            "Until the update is out, switching the device's camera to 'Most Compatible' (Settings > Camera > "
            "Formats) makes it save JPEGs, and uploads work.",
        ],
        "near": ["file-too-large", "assignment-closed-no-late"],
    },
    {
        "key": "google-new-scope-blocked",
        "cause": "Release 26.9 added a Google Drive scope to the sign-in request; in Workspace domains that only let "
                 "under-18 users use apps with admin-approved access, Google blocks the new request and students "
                 "can't sign in with Google",
        "tags": ["sso", "google", "login"],
        "priority": ["urgent", "high", "high"],
        "titles": ["Students can't sign in with Google", "Error 400 admin_policy_enforced",
                   "Access blocked when logging in", "Google login broken for pupils",
                   "Sign in with Google not working since the update"],
        "symptoms": [
            "None of our students can log in with Google this morning. Staff can. The students get an 'Access "
            "blocked' page from Google before they even reach Classbridge.",
            "i cant log in to classbridge, it says access blocked and something about my admin. i have a test "
            "tomorrow",
            "Our Year 7 to 11 can't get in, but sixth formers can. In our Google admin console the older students "
            "are in a different OU.",
            "On the Chromebooks the students click Sign in with Google, pick their school account and get error 400. "
            "It worked on Friday.",
            "Every student login attempt since your update fails with a Google error about policy. I haven't "
            "touched the Workspace settings in months.",
            "Teachers are fine, but a whole Year 9 class couldn't open the assignment in the lesson because they "
            "couldn't sign in.",
        ],
        "details": [
            "Classbridge is set as a trusted app in our Google admin console.",
            "We have the age-based access setting on for under-18s, as Google asked schools to.",
            "It happened straight after your update email.",
            "Students signing in with Microsoft at our other site are fine.",
        ],
        "errors": ["Error 400: admin_policy_enforced",
                   "Access blocked: Your institution's admin needs to review Classbridge",
                   "Access blocked: authorisation error"],
        "staff_cause": [
            "Our 26.9 release added a Google Drive permission to the 'Sign in with Google' request, for the new "
            "Drive picker. Your Workspace only lets under-18 users use Classbridge with the permissions it was "
            "approved for, so Google now blocks the sign-in for students.",
            "Google is blocking the sign-in, not Classbridge, but it's because of our change: we now ask for one "
            "more Google permission, and domains where students can only use admin-approved apps block the new "
            "request until it's approved again.",
            "This comes from our release this week, which asks Google for access to Drive files at sign-in. Student "
            "accounts in a restricted OU aren't allowed to grant that, hence admin_policy_enforced.",
        ],
        "internal": [
            "AUTH-310: new drive.file scope at sign-in -> admin_policy_enforced for U18 restricted OUs. Moved to "
            "incremental consent for students in 26.9.3.",
            "Google scope block again. Sent re-trust steps (API controls > Classbridge > Trusted).",
        ],
        "fixes": [
            "We've moved the Drive permission so it's only asked for when someone opens the Drive picker, which "
            "restores sign-in for your students without any change on your side. Please ask them to try again.",
            "In the Google Admin console, go to Security > Access and data control > API controls > Manage "
            "third-party app access, find Classbridge and set it to Trusted for the student OUs again. That approves "
            "the new permission and students can sign in straight away.",
        ],
        "near": ["third-party-apps-turned-off", "personal-google-account"],
    },
    {
        "key": "late-penalty-ignores-extension",
        "cause": "The automatic late penalty in gradebook v3 compares hand-in time with the assignment's original due "
                 "date and ignores students' individual extensions: work handed in within an extension is marked "
                 "late and loses marks",
        "tags": ["assignments", "late-work", "gradebook"],
        "titles": ["Student marked late despite extension", "Late penalty applied to extension",
                   "Extension not respected", "Late flag wrong for students with extensions",
                   "Marks deducted for late but he had an extension"],
        "symptoms": [
            "I gave {student} an extension to Friday for {assignment}. She handed it in on Thursday and it's showing "
            "as late with 10% taken off.",
            "my daughter had an agreed extension because she was ill and she has been marked late and her grade has "
            "gone down. the teacher says she cant change it",
            "All the students on our extensions list have red 'late' tags in the gradebook even though they handed "
            "in before their new deadline.",
            "When I open the submission it shows the extended due date on the student's line, but the late penalty "
            "is still applied.",
            "I removed the late penalty by hand for one student and it came back the next time the gradebook "
            "recalculated.",
            "hi i got an extension for my coursework (medical) and it says late -10% on my grade. can someone fix "
            "this before reports please",
        ],
        "details": [
            "The late penalty is set to 10% per day in the assignment settings.",
            "It's every extension I've given this term.",
            "Students without extensions who were late are marked correctly.",
            "The extensions were all set before the original deadline.",
        ],
        "errors": ["Late (-10%)", "Handed in late: 2 days after due date"],
        "staff_cause": [
            "The automatic late penalty compares the hand-in time with the assignment's original due date and "
            "ignores the student's extension. That's a bug in the new gradebook, and it's why the penalty comes back "
            "whenever the gradebook recalculates.",
            "Extensions are stored correctly, but our late-penalty calculation doesn't look at them since the "
            "gradebook v3 update, so anyone with an extension who hands in after the original deadline is marked "
            "late.",
        ],
        "internal": ["GB-902 penalty uses assignment.due_at, not the per-student override. Recalc after fix clears "
                     "flags.",
                     "Extension/late bug again (GB-902)."],
        "fixes": [
            "We've deployed a fix and recalculated your gradebooks: work handed in within an extension is no longer "
            "marked late, and the deducted marks are restored.",
            "Until the fix lands, you can turn off the automatic penalty for the assignment (Assignment settings > "
            "Late work) and apply it by hand to the students who really were late.",
        ],
        "near": ["extension-after-submission", "due-at-midnight"],
        "near_clusters": ["due-date-utc-mobile"],
    },
    {
        "key": "rollover-archives-term-classes",
        "cause": "The new-school-year rollover misread term-based academic sessions from the SIS as belonging to the "
                 "previous year and archived this year's Term 1 classes",
        "tags": ["rollover", "classes", "archived"],
        "priority": ["urgent", "high"],
        "titles": ["My classes are all archived", "Classes disappeared at start of term",
                   "Class says archived and read only", "Rollover archived this year's classes",
                   "Can't post assignments - class archived"],
        "symptoms": [
            "First day back and half of my classes have disappeared from my dashboard. The other half are there and "
            "look normal.",
            "Students are getting 'This class has been archived' when they open {class}. It's this year's class, we "
            "only started it last week.",
            "I can't post an assignment to my Year 10 group. The button is greyed out and there's a banner saying "
            "the class is read-only.",
            "In the admin console I can see about {nn} of our current classes listed under Archived, with last "
            "year's label on them.",
            "Our timetable is split into terms in the MIS, and every class that's set up per term seems to have been "
            "archived. The year-long ones are fine.",
            "The new Year 7s can log in but there's nothing on their homepage. The office says they're in classes "
            "in the MIS.",
        ],
        "details": [
            "The rollover ran on {date}.",
            "It's all the classes whose academic session in the SIS is Term 1 rather than the whole year.",
            "The sync log says everything completed.",
            "I tried unarchiving one myself and it got archived again overnight.",
        ],
        "errors": ["This class has been archived and is read-only.", "Rollover: {nn} classes archived (session ended)"],
        "staff_cause": [
            "The rollover compared your SIS's term sessions with the wrong school year, so classes linked to Term 1 "
            "were treated as last year's and archived. Year-long classes weren't affected. That's a bug in our "
            "rollover, not your setup.",
            "Your classes were archived by mistake during the new-year rollover: for schools whose SIS splits the "
            "year into terms, our rollover misread the Term 1 sessions as belonging to the previous year.",
            "It's the rollover: it archived every class whose session is a term rather than a whole year, and the "
            "nightly sync keeps them archived because it reads the same session data.",
        ],
        "internal": ["ROLL-118: term sessions parent year mismatch. Unarchived via script, fixed session map, sync "
                     "re-run.",
                     "Term-session rollover bug again. Script run for this tenant."],
        "fixes": [
            "I've restored all the affected classes with their posts and students, and corrected how your terms are "
            "mapped, so the nightly sync won't archive them again.",
            "We're running a fix for every school affected. In the meantime please don't recreate the classes by "
            "hand, as the restored ones will have everything in them.",
        ],
        "near": ["teacher-removed-in-sis", "class-hidden-from-dashboard"],
    },
    {
        "key": "video-signed-urls-expire",
        "cause": "Since the new video pipeline in September, signed links to video segments expire after two "
                 "minutes: players that fetch segments as they go (Safari, iPads, the apps) stop part way through",
        "tags": ["video", "playback", "lessons"],
        "titles": ["Videos stop after a couple of minutes", "Video lessons freezing on iPads",
                   "Lesson video won't play past 2 minutes", "Recorded lessons keep stopping",
                   "Playback error on new videos"],
        "symptoms": [
            "The video lessons I uploaded this week stop after about two minutes on the students' iPads. It freezes "
            "on a frame and the spinner goes round.",
            "My son says the science videos cut out every time. If he reloads the page it plays a bit more and then "
            "stops again. He's on a Mac.",
            "Old videos from last year play fine. Anything I've uploaded since September stops part way through.",
            "During a cover lesson the whole class were meant to watch a 20-minute video and nobody could get past "
            "the first few minutes.",
            "On the student app the video says 'This video can't be played right now' after a while, but it started "
            "fine.",
            "Chrome on the Chromebooks seems fine, but Safari and the iPad app both stop.",
            "Students who pause a video for more than a minute or two can't resume it, they have to start again.",
        ],
        "details": [
            "The videos are about {nn} minutes long.",
            "The upload finished and the video showed as ready.",
            "Our network team says nothing is being blocked.",
        ],
        "errors": ["Playback error: segment request failed (403)", "This video can't be played right now"],
        "staff_cause": [
            "Since we moved to a new video pipeline in September, the links to each piece of a video expire after "
            "two minutes. Players that load the video as they go, like Safari and the iPad app, hit an expired link "
            "part way through and stop.",
            "It's a bug in our video delivery: the signed links to video segments have too short a lifetime, so "
            "playback stops once they expire. Older videos still use the old pipeline, which is why they work.",
        ],
        "internal": ["VID-205 segment URL TTL 120s on new pipeline. Safari native HLS requests lazily -> 403. TTL "
                     "raised to 6h in hotfix.",
                     "VID-205 again."],
        "fixes": [
            "We've extended how long the video links last, and videos now play to the end on Safari and iPads. "
            "Students may need to refresh the page once.",
            "The fix is rolling out today. Nothing needs to be uploaded again.",
        ],
        "near": ["web-filter-blocks-video", "video-still-processing"],
    },
    {
        "key": "screen-reader-quiz-options",
        "cause": "The redesigned quiz player (26.8) renders multiple-choice options as unlabelled clickable boxes: "
                 "screen readers announce them as blank and keyboard users can't reach them",
        "tags": ["accessibility", "quizzes", "screen-reader"],
        "priority": ["high", "normal"],
        "titles": ["Screen reader can't read quiz answers", "Quiz not accessible for blind student",
                   "VoiceOver says blank on quiz options", "NVDA not reading multiple choice",
                   "Keyboard can't select quiz answers"],
        "symptoms": [
            "We have a visually impaired student in Year 10 who uses NVDA. Since the new quiz screen, NVDA reads each "
            "answer choice as 'clickable' with no text, so she can't answer without help.",
            "On the iPad, VoiceOver says 'blank' for every multiple-choice option. The question itself is read out "
            "fine.",
            "Our accessibility coordinator tested the quizzes with JAWS and you can't tab to the answers at all. The "
            "focus jumps from the question straight to the Next button.",
            "A student who can't use a mouse can no longer select quiz answers with the keyboard. Last term this "
            "worked.",
            "Our teaching assistant has been reading the answers aloud to a student because his screen reader skips "
            "them. That isn't what his access arrangements say.",
            "The new quiz player is failing our accessibility audit: the answer options have no accessible name.",
        ],
        "details": [
            "Text questions and the essay box are fine, it's the multiple-choice options.",
            "It started when the quiz layout changed.",
            "We've tried Chrome and Edge with the same result.",
        ],
        "staff_cause": [
            "The redesigned quiz player shows answer options as clickable boxes without a proper label, so screen "
            "readers have nothing to announce and keyboard focus skips them. That's a bug in our player, not your "
            "setup.",
            "Since the quiz player redesign, multiple-choice options aren't marked up as radio buttons any more, so "
            "NVDA, JAWS and VoiceOver read them as blank and they can't be selected from the keyboard.",
        ],
        "internal": ["A11Y-64 options rendered as div with onclick, no role or label. Fix restores radio group. "
                     "Classic player toggle as workaround.",
                     "Another A11Y-64."],
        "fixes": [
            "The fix is live: options are proper radio buttons again, their text is read out and keyboard selection "
            "works.",
            "While we fix it, you can turn on 'Use classic quiz player' for the student under their profile > "
            "Accommodations; the classic player works with screen readers.",
        ],
        "near": ["images-missing-alt-text"],
    },
    {
        "key": "clever-id-duplicates",
        "cause": "When a district re-imports students into Clever and their Clever IDs change, Classbridge matches "
                 "on the Clever ID instead of the SIS ID and creates a second, empty account for each student",
        "tags": ["clever", "rostering", "accounts"],
        "titles": ["Students have duplicate accounts", "Student logs in and all work is gone",
                   "Same student twice on roster", "Clever login shows empty account",
                   "Duplicate students after Clever sync"],
        "symptoms": [
            "Several of my 4th graders logged in through Clever this morning and their Classbridge is empty. No "
            "classes, no work.",
            "My roster for {class} now has some students listed twice, same name, one with all their work and one "
            "with nothing.",
            "Our licence count jumped by about {nn} overnight, and when I look at users there are duplicates of "
            "students who were already there.",
            "A student did her assignment and handed it in but it's not in my gradebook. It turns out she's in "
            "there twice and the work went to the other one.",
            "We re-imported our students into Clever from the SIS over the weekend. Since then Clever logins land "
            "on brand new accounts.",
            "The admin data page shows 'Duplicate SIS ID' warnings for lots of students.",
        ],
        "details": [
            "Students who sign in with Google directly still see their old account.",
            "The district did a full re-import in Clever on {weekday}.",
            "The SIS IDs haven't changed, only Clever's IDs are new.",
        ],
        "errors": ["Duplicate SIS ID {num} (2 accounts)", "Clever sync: created {nn} new users"],
        "staff_cause": [
            "When your district re-imported into Clever, Clever gave the students new IDs. Our Clever sync matches "
            "students by Clever ID rather than by SIS ID, so it created a second account for each of them, and "
            "Clever logins now land on the new empty one.",
            "The duplicates come from how we match Clever users: we rely on the Clever ID, and after your re-import "
            "every changed ID was treated as a new student.",
            "It's our matching: the SIS ID is the same, but the Clever ID changed in the re-import and we created "
            "fresh accounts instead of linking the existing ones.",
        ],
        "internal": ["CLV-77 match on clever_id only. Merge script run for this district; fallback to sis_id "
                     "shipped in 26.10.1.",
                     "Clever re-import dupes again. Merged accounts, released extra seats."],
        "fixes": [
            "I've merged each pair of accounts, keeping all the students' work, and removed the extra licences from "
            "your count. Clever logins now go to the original accounts.",
            "We've changed the Clever sync to fall back to the SIS ID, so this won't happen on future re-imports. "
            "The duplicates on your account have been merged.",
        ],
        "near": ["clever-section-not-shared", "personal-google-account"],
    },
    {
        "key": "due-date-utc-mobile",
        "cause": "Assignments created or edited in the Classbridge Teach app save the due time in UTC instead of the "
                 "school's time zone: deadlines move by the school's UTC offset",
        "tags": ["assignments", "due-dates", "mobile-app"],
        "titles": ["Due time wrong on homework", "Assignment due date shifted", "Deadline showing the wrong time",
                   "Students marked late before the deadline", "Due dates changed by themselves"],
        "symptoms": [
            "I set homework due at 9am in the teacher app and the students see it as due at 10am. The website shows "
            "10am too.",
            "Students are being marked late for work they handed in before 11:59 PM. The assignment says it was due "
            "at 6:59 PM.",
            "Every assignment I post from my phone has a due time an hour out. The ones I post from my laptop are "
            "right.",
            "Some students saw yesterday's date as the due date for {assignment}, and the app told them it was "
            "overdue.",
            "When I edit an assignment on my iPhone just to fix a typo, the due time jumps.",
            "Parents get the weekly email with due times that don't match what the teacher told the class.",
        ],
        "details": [
            "I nearly always set assignments from the app between lessons.",
            "It's been happening since the clocks changed, I think.",
            "Our school time zone in the settings is correct.",
        ],
        "staff_cause": [
            "When an assignment is created or edited in the Teach app, the due time is saved in UTC rather than in "
            "your school's time zone, so the deadline moves by the time difference. Assignments set on the website "
            "aren't affected.",
            "This is a bug in the teacher app: it drops the school's time zone when saving the due date, so every "
            "due time set from a phone is shifted.",
        ],
        "internal": ["MOB-1312 Teach app sends a naive datetime, server assumes UTC. Fixed in Teach 4.8.2.",
                     "UTC due date bug again."],
        "fixes": [
            "Version 4.8.2 of the Teach app fixes this. Assignments already saved with the wrong time need their "
            "due time correcting once on the website; late flags caused by the shift are cleared when you save.",
            "Until the app update reaches your phone, please set or edit due dates on the website.",
        ],
        "near": ["school-timezone-setting"],
        "near_clusters": ["late-penalty-ignores-extension"],
    },
    {
        "key": "parent-codes-regenerated",
        "cause": "Since release 26.8, any change to a student record arriving through the nightly sync regenerates "
                 "that student's parent access code: codes on printed letters stop working before parents use them",
        "tags": ["parents", "parent-accounts", "access-codes"],
        "titles": ["Parent access code not working", "Parents getting invalid code",
                   "Codes on parent letters invalid", "Can't link my child - code expired", "Parent sign up failing"],
        "symptoms": [
            "I'm trying to make a parent account for my son and it keeps saying the code is invalid or expired. The "
            "letter only came home yesterday.",
            "We printed parent letters for the whole of Year 7 last week and about a third of the parents say the "
            "code doesn't work.",
            "If I print a new letter for a parent whose code failed, the code on it is different from the first one, "
            "and the new one works. Then a few days later a different family has the same problem.",
            "The parents whose address or phone number we updated in the MIS recently seem to be the ones whose "
            "codes don't work.",
            "The office has had over {nn} phone calls this week from parents who can't link their child in the "
            "parent app.",
            "hello i try the code from the school letter many times, always say invalid code. i check it is correct",
        ],
        "details": [
            "The letters were printed from Admin > Parents > Print access letters.",
            "The codes are being typed in correctly, I've watched parents do it at the front desk.",
            "Codes for some children work fine.",
        ],
        "errors": ["This code is invalid or has expired.", "Invalid access code"],
        "staff_cause": [
            "Since our 26.8 release, a parent access code is regenerated whenever the student's record is updated by "
            "the nightly sync, for example a changed address or contact. That makes the code on an already printed "
            "letter invalid.",
            "The codes were correct when printed, but the sync replaced them: any change to the student record from "
            "your MIS currently creates a new code, which it shouldn't.",
        ],
        "internal": ["PAR-430 code regenerated on sync update. Fix: regenerate only on explicit reset. Old codes "
                     "restored for 30 days.",
                     "Another PAR-430 (parent codes invalid after MIS updates)."],
        "fixes": [
            "We've stopped the sync from changing codes and restored the codes that were printed on your letters, so "
            "they work again for the next 30 days.",
            "The fix is deployed. Codes now change only when someone resets them on purpose, and letters already "
            "sent out will work again from tonight.",
        ],
        "near": ["code-letter-o-zero", "code-entered-in-student-app"],
    },
]

NEAR_MISSES = [
    {"key": "student-not-in-sis-class",
     "cause": "The student was enrolled in the school in the MIS but never added to the teaching group",
     "tags": ["roster-sync", "classes"], "titles": ["New student not on my class list", "Student missing from class"],
     "symptoms": ["A new student joined my {class} on Monday and she's still not on my list in Classbridge. The "
                  "other new starters this term appeared fine.",
                  "One of my students can log in but can't see my class at all. He's definitely in my lessons."],
     "details": ["He's new to the school this week."],
     "staff_cause": ["The sync history shows the student is enrolled in your school, but your MIS doesn't have her in "
                     "any class for {subject}, so there's nothing for us to sync. She was added to the school roll but "
                     "not to the teaching group.",
                     "Classbridge only puts a student in a class if the SIS lists them in that class. This student is "
                     "on roll but not timetabled into your group yet."],
     "fixes": ["Ask your data manager to add her to the class in the MIS; she'll appear after the next nightly sync, "
               "or straight away if an admin uses Sync now."]},
    {"key": "sync-runs-overnight",
     "cause": "Changes made in the SIS during the day only arrive with the nightly sync (expected)",
     "tags": ["roster-sync", "sis"], "titles": ["Set changes not showing in Classbridge"],
     "symptoms": ["I moved two students between maths sets in the MIS this morning and they're still in their old "
                  "classes in Classbridge. Is the sync broken?"],
     "staff_cause": ["The sync isn't broken: changes made in the SIS during the day are picked up by the nightly sync "
                     "at about 2am, so this morning's set changes will show tomorrow."],
     "fixes": ["If you need them moved sooner, an admin can run Sync now under Admin > Integrations > Roster sync."]},
    {"key": "unpublished-not-exported",
     "cause": "The latest assignments' marks weren't published, and only published marks are exported",
     "tags": ["gradebook", "grade-export"], "titles": ["SIS grade doesn't match gradebook"],
     "symptoms": ["The grade in our SIS for {class} doesn't match my gradebook for a few students. The export said it "
                  "worked."],
     "staff_cause": ["The last two assignments in that gradebook are still unpublished (the marks are greyed out), "
                     "and grade export only sends published marks, so the SIS grade doesn't include them yet. The "
                     "weighting is being exported correctly."],
     "fixes": ["Publish the marks and export again, and the SIS will match."]},
    {"key": "sis-grading-scale",
     "cause": "The SIS applies its own grading scale and truncates the exported percentage",
     "tags": ["gradebook", "grade-export", "sis"], "titles": ["Letter grade wrong in SIS"],
     "symptoms": ["A student has 89.6% in Classbridge but shows as a B+ in PowerSchool. She should have an A-. Why "
                  "is the export getting it wrong?"],
     "staff_cause": ["We sent 89.6 to PowerSchool, which you can see in the export history. The letter grade comes "
                     "from the grading scale in your SIS, which truncates to 89 instead of rounding, so it lands in "
                     "the B+ band."],
     "fixes": ["Your SIS admin can change the rounding on the grading scale in PowerSchool."]},
    {"key": "accommodation-added-late",
     "cause": "The extra-time accommodation was saved after the student had started the quiz; it applies to new "
              "attempts only",
     "tags": ["quizzes", "accommodations"], "titles": ["Student didn't get extra time on quiz"],
     "symptoms": ["One student who has extra time only got the normal time on today's quiz. The others with extra "
                  "time were fine."],
     "staff_cause": ["His extra-time accommodation was saved at 10:14, but he started the quiz at 10:02. "
                     "Accommodations apply to attempts started after they're saved, so this attempt had the normal "
                     "timer."],
     "fixes": ["Reopen his attempt from the quiz results and he'll get the extra time now that it's on his profile."]},
    {"key": "connection-lost-autosubmit",
     "cause": "The student's device went offline and the time limit ran out while it was disconnected",
     "tags": ["quizzes"], "titles": ["Quiz submitted itself early", "Answers missing from quiz"],
     "symptoms": ["A student's quiz submitted itself before she'd finished and half of her answers are missing. She "
                  "says she was still answering."],
     "staff_cause": ["The attempt log shows her device lost connection after question 6 and didn't reconnect before "
                     "the time limit ran out, so the answers she gave while offline were never received. The timer "
                     "keeps running while a device is offline."],
     "fixes": ["You can reopen the attempt from the results page so she can finish it."]},
    {"key": "originality-not-enabled",
     "cause": "Originality checking was never switched on for the assignment",
     "tags": ["originality", "assignments"], "titles": ["No plagiarism scores on essays"],
     "symptoms": ["None of the submissions for {assignment} have a similarity score. There isn't even a pending icon."],
     "staff_cause": ["'Check originality' wasn't turned on in that assignment's settings, so no checks were run. The "
                     "checker itself is working."],
     "fixes": ["Turn it on and use 'Check all now' on the submissions page; reports for work already handed in come "
               "through within about ten minutes."]},
    {"key": "self-match-draft",
     "cause": "The high similarity is the student's own earlier draft handed in to the same assignment",
     "tags": ["originality", "plagiarism"], "titles": ["Similarity score 94% but she wrote it herself"],
     "symptoms": ["The originality report says 94% for one of my students. I watched her write it in lessons, there's "
                  "no way it's copied."],
     "staff_cause": ["The matches are all with her own first draft, which she handed in to the same assignment two "
                     "weeks ago. Earlier drafts count as sources unless you exclude them."],
     "fixes": ["Turn on 'Exclude the student's own submissions' in the assignment's originality settings and run the "
               "check again."]},
    {"key": "parent-email-bouncing",
     "cause": "The parent's email address in the MIS is mistyped, so the weekly emails bounce",
     "tags": ["parents", "weekly-email"], "titles": ["Parent never gets weekly email"],
     "symptoms": ["A mum with two children here says she has never had a single weekly summary email, for either of "
                  "them. Other parents get theirs."],
     "staff_cause": ["Her email address in your MIS is spelled 'hotmial.co.uk', so every email to her bounces. It's "
                     "listed under Admin > Parents > Email delivery. The summaries themselves are fine."],
     "fixes": ["Correct the address in the MIS and it will come through with the next sync."]},
    {"key": "second-child-not-linked",
     "cause": "The parent account is only linked to one child; the second child's code was never used",
     "tags": ["parents", "parent-accounts"], "titles": ["Weekly email missing my younger child"],
     "symptoms": ["I only get the weekly email about my older daughter. My younger one started at the school in "
                  "September and she's never on it. I can't see her in the app either."],
     "staff_cause": ["Your account is only linked to your older daughter. Each child has their own access code and "
                     "your younger daughter's code hasn't been entered yet, so she isn't on your account at all."],
     "fixes": ["In the Family app go to Children > Add a child and enter the code from her letter; the school office "
               "can print a new one if you don't have it."]},
    {"key": "file-too-large",
     "cause": "The student's video is over the 500 MB limit for a hand-in file",
     "tags": ["submissions", "mobile-app"], "titles": ["Student can't upload his PE video"],
     "symptoms": ["A GCSE PE student can't hand in his performance video from his iPhone. The upload goes for ages "
                  "and then fails."],
     "errors": ["File is too large (max 500 MB)"],
     "staff_cause": ["His video is 1.3 GB, and a single hand-in file can be up to 500 MB, so the upload is refused. "
                     "Photos and smaller files from the same phone work normally."],
     "fixes": ["He can trim the clip, or upload it to his school OneDrive and hand in the link."]},
    {"key": "assignment-closed-no-late",
     "cause": "The assignment closed at the due time because late submissions are turned off",
     "tags": ["submissions", "assignments"], "titles": ["Hand in button disappeared"],
     "symptoms": ["A student says the hand in button disappeared in the app when she tried to submit her photo last "
                  "night, so she couldn't hand in."],
     "staff_cause": ["The assignment doesn't accept late work, so the hand-in button was removed at the due time, "
                     "21:00. She tried at 21:40. The app and the upload are working normally."],
     "fixes": ["You can allow her to hand in by giving her an extension, or turn on late submissions for the "
               "assignment."]},
    {"key": "third-party-apps-turned-off",
     "cause": "The school's Google admin blocked all unconfigured third-party apps for the student OU",
     "tags": ["sso", "google", "login"], "titles": ["Students blocked from signing in with Google"],
     "symptoms": ["Since Monday our students can't sign in with Google. They get a page saying access is blocked by "
                  "the admin. Staff can still sign in."],
     "errors": ["Error 400: admin_policy_enforced"],
     "staff_cause": ["Your Google Admin audit log shows API controls for the Students OU were changed on {date} to "
                     "block all third-party apps that aren't configured, and Classbridge had never been added as "
                     "Trusted. Our sign-in request hasn't changed."],
     "fixes": ["Add Classbridge under API controls > Manage third-party app access and set it to Trusted for the "
               "student OUs."]},
    {"key": "personal-google-account",
     "cause": "The student signed in with a personal Gmail account, which created a separate empty account",
     "tags": ["login", "accounts"], "titles": ["Student has no classes when she logs in"],
     "symptoms": ["One of my students logs in and sees no classes and none of her work. Everyone else in the class "
                  "is fine."],
     "staff_cause": ["She's signing in with a personal Gmail address rather than her school account, and that "
                     "created a separate, empty Classbridge account. Her school account still has all her work."],
     "fixes": ["Ask her to sign out and choose her school account. An admin can stop this happening by restricting "
               "sign-in to your school domains under Admin > Security > Allowed domains."]},
    {"key": "extension-after-submission",
     "cause": "The extension was given after the student had already handed in late, so the late mark stays",
     "tags": ["assignments", "late-work"], "titles": ["Still marked late after I gave an extension"],
     "symptoms": ["I gave a student an extension yesterday but her work is still showing as late with the penalty."],
     "staff_cause": ["She handed in on Monday, after the original due date, and the extension was added on Tuesday. "
                     "An extension only changes the due date for work handed in afterwards; it doesn't re-mark work "
                     "that was already late."],
     "fixes": ["Open her submission and choose 'Waive late penalty' to remove it."]},
    {"key": "due-at-midnight",
     "cause": "The due time was set to 00:00, which is the start of the due day, not the end",
     "tags": ["assignments", "due-dates"], "titles": ["Everyone marked late who handed in on the due day"],
     "symptoms": ["Every student who handed in on the due date has been marked late. The ones who handed in the day "
                  "before are fine."],
     "staff_cause": ["The due time on the assignment is 00:00 on the 14th, which is the first minute of that day, so "
                     "work handed in later on the 14th counts as late. That's how due times work rather than a fault."],
     "fixes": ["Change the due time to 23:59 and the late flags will be recalculated."]},
    {"key": "teacher-removed-in-sis",
     "cause": "The teacher was taken off the class in the SIS timetable, so the sync removed her from it",
     "tags": ["classes", "roster-sync"], "titles": ["One of my classes has disappeared"],
     "symptoms": ["One of my classes has disappeared from my dashboard. The students say they can still see it."],
     "staff_cause": ["The class isn't archived. Your MIS timetable change on {date} replaced you with another teacher "
                     "on that class, so the sync took you off it; it's still live for the students."],
     "fixes": ["If you should still teach it, ask your timetabler to add you back in the MIS, as a second teacher if "
               "needed."]},
    {"key": "class-hidden-from-dashboard",
     "cause": "The teacher hid the class from her own dashboard; it isn't archived",
     "tags": ["classes"], "titles": ["Class gone from my homepage"],
     "symptoms": ["My Year 9 class has gone from my homepage. I definitely didn't archive it."],
     "staff_cause": ["The class was hidden from your dashboard on {weekday} with 'Hide class', which only affects "
                     "your own view. It isn't archived and your students can still use it."],
     "fixes": ["Click 'Show hidden classes' at the bottom of your dashboard and unhide it."]},
    {"key": "web-filter-blocks-video",
     "cause": "The school's web filter blocks Classbridge's video delivery domain",
     "tags": ["video", "network"], "titles": ["Videos won't play in school"],
     "symptoms": ["None of the video lessons will play on school computers. At home they're fine, and so is the rest "
                  "of Classbridge in school."],
     "errors": ["This video can't be played right now"],
     "staff_cause": ["Video is delivered from media.classbridge-cdn.example, and your school's web filter is blocking "
                     "that domain, so videos never start on the school network. Nothing is wrong with the videos."],
     "fixes": ["Ask your network team to allow the domains listed in our video help article."]},
    {"key": "video-still-processing",
     "cause": "The uploaded video was still processing (a long 4K recording)",
     "tags": ["video", "lessons"], "titles": ["Uploaded video won't play for students"],
     "symptoms": ["I uploaded a lesson video an hour ago and the students say it won't play, it just shows an error."],
     "errors": ["This video can't be played right now"],
     "staff_cause": ["The video is still processing: it's a 55-minute recording in 4K, which takes longer than usual. "
                     "It will play once the Processing label disappears."],
     "fixes": ["Recording in 1080p makes processing much quicker next time."]},
    {"key": "images-missing-alt-text",
     "cause": "The quiz's diagram questions have no alt text, so screen readers have nothing to read",
     "tags": ["accessibility", "quizzes"], "titles": ["Screen reader skipping quiz questions"],
     "symptoms": ["Our visually impaired student says her screen reader skips some questions in the science quiz "
                  "and just says 'image'."],
     "staff_cause": ["Those questions are diagrams uploaded as images without a description, so the screen reader "
                     "can only announce 'image'. The quiz player itself is reading the rest correctly."],
     "fixes": ["Edit the questions and add alt text to each image; the question editor warns about missing alt "
               "text."]},
    {"key": "clever-section-not-shared",
     "cause": "The district hasn't shared the new section with Classbridge in Clever",
     "tags": ["clever", "rostering"], "titles": ["New class not showing up from Clever"],
     "symptoms": ["I've picked up a new section this semester and it isn't in Classbridge. My students log in "
                  "through Clever fine and see my other classes."],
     "staff_cause": ["Clever hasn't sent us that section: your district's sharing rules in Clever don't include it, so "
                     "Classbridge has never been told it exists."],
     "fixes": ["Your Clever district admin can add the section to Classbridge's sharing rules, and it will appear at "
               "the next sync."]},
    {"key": "school-timezone-setting",
     "cause": "The school's time zone in Classbridge settings was left as UTC when the account was created",
     "tags": ["assignments", "due-dates", "settings"], "titles": ["All due times an hour out"],
     "symptoms": ["Every assignment's due time is an hour out, whether we set it on the website or in the app. It "
                  "started when the clocks went forward."],
     "staff_cause": ["Your school's time zone under Admin > School settings is set to UTC, so during summer time "
                     "every due time is an hour out. It affects all assignments, not only those from the app."],
     "fixes": ["Set the time zone to Europe/London; existing due times are shown correctly straight away."]},
    {"key": "code-letter-o-zero",
     "cause": "The parent typed the letter O instead of the digit zero in the access code",
     "tags": ["parents", "access-codes"], "titles": ["Parent code says invalid"],
     "symptoms": ["A parent says the code on her letter doesn't work. She's typed it in several times."],
     "errors": ["Invalid access code"],
     "staff_cause": ["She's typing the letter O where the code has a zero. Access codes never contain the letter O, "
                     "and the code itself is valid."],
     "fixes": ["Ask her to enter it again with a zero."]},
    {"key": "code-entered-in-student-app",
     "cause": "The parent is entering the parent code in the student app instead of Classbridge Family",
     "tags": ["parents", "mobile-app"], "titles": ["Can't add my daughter in the app"],
     "symptoms": ["i download the classbridge app and put my daughter code from the letter but it says invalid. "
                  "please help"],
     "staff_cause": ["The 'Classbridge' app is the student app, which only accepts student sign-in. Parent codes are "
                     "entered in the separate 'Classbridge Family' app."],
     "fixes": ["Please install Classbridge Family, create an account with your email and enter the code there."]},
]

SINGLETONS = [
    {"title": "Adding a teaching assistant to a class", "tags": ["classes", "how-to"],
     "body": "How do I add our teaching assistant to {class} so she can see the submissions but not change any "
             "marks?",
     "reply": "Open the class, go to Settings > People > Add staff and choose the Assistant role. Assistants can see "
              "and comment on work but can't change marks or publish grades."},
    {"title": "Combine two classes", "tags": ["classes", "how-to"],
     "body": "I teach 10B and 10C together for science. Can I merge them into one Classbridge class so I only post "
             "things once?",
     "reply": "An admin can create a combined class under Admin > Classes > Combine classes. Both synced classes stay "
              "linked to the SIS, so students joining either of them appear in the combined class."},
    {"title": "Preferred name for a student", "tags": ["students", "data"],
     "body": "A student has asked to be known by a different first name. Can Classbridge show that name without us "
             "changing her legal name in the MIS?",
     "reply": "Yes. If your MIS has a preferred name field we use it automatically. Otherwise set the display name "
              "under Admin > Users > the student > Name; the sync won't overwrite it."},
    {"title": "Delete parent account and data", "tags": ["parents", "gdpr"],
     "body": "A parent has asked us to delete her Classbridge account and everything you hold about her. How do we "
             "do that?",
     "reply": "An admin can delete the parent under Admin > Parents > the parent > Delete account. Her data is "
              "erased within 30 days, and the children's accounts are not affected."},
    {"title": "PO number on renewal invoice", "tags": ["billing", "invoices"],
     "body": "Our finance office needs the purchase order number on the renewal invoice or they can't pay it. The PO "
             "is {num}.",
     "reply": "I've added the PO number to your billing profile and reissued the invoice; you'll find it under "
              "Admin > Billing > Invoices."},
    {"title": "Deleted an assignment by accident", "tags": ["assignments", "restore"],
     "body": "I accidentally deleted an assignment this morning and it had {nn} submissions on it. Is there any way "
             "to get it back?? The students worked really hard on it.",
     "reply": "Yes: go to the class, open the menu next to Classwork and choose Recently deleted. Assignments can be "
              "restored with all their submissions for 30 days."},
    {"title": "Dark mode in the student app", "tags": ["mobile-app", "feature-request"],
     "body": "Lots of my students keep asking if the Classbridge app will get a dark mode. Is it planned?"},
    {"title": "Need to see a deleted stream post", "tags": ["safeguarding", "stream"],
     "body": "A student posted something really unpleasant about another student in the class stream and then "
             "deleted it. Our head of year needs to see exactly what was said. Is that possible?",
     "reply": "Yes. Designated safeguarding staff and admins can see deleted posts and comments for 90 days under "
              "Admin > Safeguarding > Stream audit, including who posted and when."},
    {"title": "Stop students commenting on announcements", "tags": ["stream", "settings"],
     "body": "Can I stop students commenting on my announcements? Year 8 keep filling them with emojis.",
     "reply": "In the class, go to Settings > Stream and set 'Students can' to 'Only view'. You can still allow "
              "private comments to you on assignments."},
    {"title": "Reset password for a Year 3 child", "tags": ["login", "students"],
     "body": "One of our Year 3 children has forgotten her password. Our younger pupils don't have Google accounts. "
             "How do I reset it?",
     "reply": "Open the class, go to People, choose the child and then Reset password. You can also print QR login "
              "cards so younger children don't need to type a password at all."},
    {"title": "QR login cards for infants", "tags": ["login", "how-to"],
     "body": "Our Reception children can't type passwords. Is there an easier way for them to log in on the iPads?",
     "reply": "Yes: go to Class > People > Print login cards. Each child gets a card with a QR code they show to the "
              "iPad camera to sign in."},
    {"title": "Download all coursework for moderation", "tags": ["assignments", "export"],
     "body": "The exam board moderator wants all the coursework from our sample. Can I download every submission for "
             "an assignment in one go?",
     "reply": "On the assignment, go to Submissions > Download all. You get a ZIP file with one folder per student, "
              "named by candidate number if you've added them."},
    {"title": "Access for external moderator", "tags": ["permissions", "how-to"],
     "body": "We have an external verifier from the awarding body coming next week. She needs to look at student "
             "portfolios in Classbridge but she isn't staff. What's the best way?",
     "reply": "Invite her as a Guest reviewer from the class's People page. Guest reviewers can view work and leave "
              "comments only, and their access ends after 14 days."},
    {"title": "Where is our data stored?", "tags": ["data-protection", "question"],
     "body": "Our data protection officer needs to know where student data is held. Is it kept in the UK or EU?",
     "reply": "Schools in the UK are hosted in London and schools in the EU in Frankfurt. Our data processing "
              "agreement and list of subprocessors are under Admin > Legal."},
    {"title": "Signing our data sharing agreement", "tags": ["data-protection", "contracts"],
     "body": "Our local authority has its own data sharing agreement template. Can Classbridge sign it, or do we "
             "have to use yours?"},
    {"title": "Weekly email in other languages", "tags": ["parents", "weekly-email", "languages"],
     "body": "A lot of our parents speak Polish or Arabic at home. Can the weekly parent email go out in their "
             "language?",
     "reply": "Yes. Each parent's emails use the language set in their Family app. If your MIS records a home "
              "language, turn on 'Use MIS language for parents' under Admin > Parents and we'll set it for them."},
    {"title": "Parent wants to stop weekly emails", "tags": ["parents", "weekly-email"],
     "body": "A dad has asked to stop getting the weekly summary but he still wants the notifications on his phone. "
             "Can we do that for him?",
     "reply": "He can do it himself in the Family app under Settings > Emails, or an admin can untick the weekly "
              "summary on his parent record. App notifications aren't affected."},
    {"title": "Working offline in the student app", "tags": ["mobile-app", "question"],
     "body": "Some of our students don't have internet at home. Can they download their assignments and work "
             "offline?",
     "reply": "Yes. Assignments and files opened in the student app while online are kept on the device, and work "
              "handed in offline is queued and sent when the device reconnects."},
    {"title": "Due dates in Outlook calendar", "tags": ["calendar", "how-to"],
     "body": "Can teachers see their Classbridge due dates in their Outlook calendar?",
     "reply": "Yes: go to your profile > Calendar feed and copy the link into Outlook with 'Add calendar > From "
              "internet'. It updates every few hours."},
    {"title": "Import quiz questions from Word", "tags": ["quizzes", "import"],
     "body": "I've got about 200 quiz questions in a Word document. Is there a way to import them rather than typing "
             "each one?",
     "reply": "You can import questions from our CSV template or from QTI files exported by other platforms. Word "
              "documents need converting to the CSV template first; the template is in Quizzes > Import."},
    {"title": "Typing equations in answers", "tags": ["quizzes", "maths"],
     "body": "is there any way for students to type fractions and powers in quiz answers? they keep writing 3/4x^2 "
             "and it's hard to read",
     "reply": "Yes: the answer box has an equation button (the square root symbol) that opens an equation editor. "
              "Students can also type LaTeX between dollar signs."},
    {"title": "Anonymous marking", "tags": ["assignments", "marking"],
     "body": "Can I mark the mock essays without seeing whose they are?",
     "reply": "Turn on Anonymous marking in the assignment settings before you start marking. Names are shown again "
              "when you release the marks."},
    {"title": "Sharing a rubric with the department", "tags": ["gradebook", "rubrics"],
     "body": "How do I make a rubric once and let the rest of the English department use it?",
     "reply": "Create it under Gradebook > Rubrics and choose Share to department. Colleagues can then pick it from "
              "the department library when they set an assignment."},
    {"title": "Report comments to the SIS", "tags": ["grade-export", "question"],
     "body": "Does Classbridge send teachers' report comments to the SIS along with the grades?",
     "reply": "Not at the moment: grade export sends grades and marks only. Comment export is on our roadmap for "
              "next year."},
    {"title": "Taking the register", "tags": ["question", "attendance"],
     "body": "Can teachers take attendance in Classbridge instead of the MIS?",
     "reply": "No, Classbridge doesn't record attendance; registers stay in your MIS."},
    {"title": "Supply teacher access", "tags": ["permissions", "classes"],
     "body": "We have a supply teacher covering Mr Okoro's classes for three weeks. She isn't in our MIS. How can "
             "she get into his classes?",
     "reply": "An admin can add her under Admin > Users > Add staff, then add her to the classes as a Cover teacher "
              "with an end date. Her access stops automatically on that date."},
    {"title": "Copy this year's resources to next year", "tags": ["classes", "how-to"],
     "body": "Can I copy all my assignments and resources from this year's Year 10 class into next year's class "
             "once it exists?",
     "reply": "Yes: in this year's class open the menu and choose Copy content to..., then pick the new class. "
              "Assignments come across as drafts so you can set new dates."},
    {"title": "Uploading students from a spreadsheet", "tags": ["students", "import"],
     "body": "We don't have an SIS. Can we upload our students and classes from an Excel sheet?",
     "reply": "Yes: download the template under Admin > Users > Import, fill it in and upload it as CSV. You can "
              "re-upload it later to add students; existing ones are matched by student ID."},
    {"title": "Locked mode for quizzes on Chromebooks", "tags": ["quizzes", "chromebooks"],
     "body": "Can our end-of-year quizzes run in a locked mode on the managed Chromebooks so students can't open "
             "other tabs?",
     "reply": "Yes. Install the Classbridge Exam kiosk app from your Google Admin console, then tick 'Require locked "
              "mode' in the quiz settings."},
    {"title": "Adding a new school to our trust", "tags": ["licences", "accounts"],
     "body": "We're taking on another primary school in January. How do we add it to our trust's Classbridge "
             "account?",
     "reply": "Your account manager will add the school to your trust account and agree its seats. Once it's added, "
              "the school's MIS can be connected from Admin > Integrations."},
    {"title": "Change the account owner", "tags": ["accounts", "admin"],
     "body": "Our previous IT manager was the account owner and he's left. How do I become the owner?",
     "reply": "We need a short email or letter from your head teacher or principal confirming the change. Once we "
              "have it we'll transfer ownership the same day."},
    {"title": "Leaving Classbridge at the end of the year", "tags": ["billing", "cancellation"],
     "body": "We're moving to another platform in July. How do we export everything before our contract ends?",
     "reply": "An admin can request a full export under Admin > Data > Export. After the contract ends the account "
              "stays read-only for 90 days, then data is deleted."},
    {"title": "Who deleted this class?", "tags": ["admin", "audit"],
     "body": "One of our intervention groups has disappeared and a colleague thinks someone deleted it. Can we see "
             "who did?",
     "reply": "Admins can see this under Admin > Audit log; filter by the class name. Deleted classes can be "
              "restored from Admin > Classes > Deleted for 30 days."},
    {"title": "Video upload limits", "tags": ["video", "question"],
     "body": "Is there a limit to how many videos I can upload? I teach media studies and our files are big.",
     "reply": "Each video can be up to 10 GB. There's no overall storage limit on your plan."},
    {"title": "Editing automatic captions", "tags": ["video", "captions"],
     "body": "The automatic captions on my French videos get a lot of words wrong. Can I correct them?",
     "reply": "Yes: open the video, choose Captions > Edit and correct the text, or upload your own VTT file."},
    {"title": "Welsh language interface", "tags": ["languages", "question"],
     "body": "Do you have a Welsh interface? Our Welsh-medium pupils would really like one.",
     "reply": "Yes, Cymraeg is available. Each user can choose it under Profile > Language, or an admin can set it "
              "as the school's default."},
    {"title": "Trainee teacher access", "tags": ["permissions", "how-to"],
     "body": "We have a PGCE trainee with us until Easter. She isn't set up as staff in our MIS. Can she still use "
             "Classbridge with her mentor's classes?",
     "reply": "Yes: add her as a staff user by hand and give her the Trainee role with an end date. Her mentor keeps "
              "control of marks and grades."},
    {"title": "Leaver wants a copy of her work", "tags": ["students", "data"],
     "body": "A Year 13 student who left in the summer wants a copy of her art portfolio from Classbridge. Can she "
             "still get to it?",
     "reply": "Students keep access for 60 days after they leave and can download everything from Profile > Export "
              "my work. After that, an admin can export a single student's work for you to send her."},
    {"title": "Notifications at night", "tags": ["notifications", "mobile-app"],
     "body": "I've had a complaint from a parent that Classbridge notifications are buzzing her daughter's phone at "
             "11pm. Can we stop that?",
     "reply": "Yes: set quiet hours for the whole school under Admin > Notifications, for example 21:00 to 07:00. "
              "Students can also set their own quiet hours in the app."},
    {"title": "GCSE 9-1 grades in the gradebook", "tags": ["gradebook", "grading-scales"],
     "body": "How do I get the gradebook to show GCSE grades 9 to 1 rather than percentages?",
     "reply": "An admin can create the scale under Admin > Grading scales, then choose it in each class's gradebook "
              "settings. Percentages are still kept behind the scenes."},
    {"title": "Moving from Google Classroom", "tags": ["migration", "question"],
     "body": "We're thinking of moving from Google Classroom. Can we bring our classes and coursework across?",
     "reply": "Yes: Admin > Migrate > Google Classroom imports classwork, materials and topics for each teacher who "
              "connects their account. Student submissions stay in Google Classroom."},
    {"title": "Adding an LTI tool", "tags": ["integrations", "lti"],
     "body": "Can we add our maths practice website to Classbridge as an LTI tool so students don't have to log in "
             "twice?",
     "reply": "Yes, we support LTI 1.3. An admin adds the tool under Admin > Integrations > LTI tools, and teachers "
              "can then add it to assignments."},
    {"title": "Accessibility conformance report", "tags": ["accessibility", "procurement"],
     "body": "Our procurement team needs your VPAT or accessibility conformance report for the tender.",
     "reply": "You can download our latest accessibility conformance report (WCAG 2.2 AA) from the Trust Centre "
              "linked at the bottom of every page."},
    {"title": "Students can't see their marks", "tags": ["gradebook", "question"],
     "body": "My students say the last test shows as 'Marked' in their app but they can't see the score. Did it not "
             "save?",
     "reply": "The marks are saved but not released yet. Open the assignment and click Release marks; students and "
              "parents will see them straight away."},
    {"title": "Print the gradebook", "tags": ["gradebook", "export"],
     "body": "Can I print my gradebook for parents' evening?",
     "reply": "Yes: Gradebook > Export > PDF gives you a printable version. You can choose a single student's page "
              "too."},
    {"title": "Surname first on class lists", "tags": ["settings", "classes"],
     "body": "Our class lists show surname first. Can we switch them to first name first?",
     "reply": "An admin can change it under Admin > School settings > Display, 'Show names as'."},
    {"title": "New students can't log in - licence message", "tags": ["licences", "billing"],
     "body": "Our new students get a message about licences when they try to log in. Everyone else is working "
             "normally. Has something happened to our account?",
     "reply": "Your licence ended on 31 August and we haven't received the renewal order yet, so the account is in "
              "its 30-day grace period: existing users carry on, but new students can't be activated. As soon as "
              "the renewal comes through they'll be activated automatically."},
    {"title": "Seat count higher than our number of students", "tags": ["licences", "billing"],
     "body": "The licence page says we're using {nn} more seats than we have students. Are you counting people who "
             "have left?",
     "reply": "Leavers aren't counted. Your contract dates from 2022, when staff accounts counted as seats too, and "
              "that's the difference. At renewal you can move to the current terms, where staff are free."},
    {"title": "Gradebook blank on my laptop", "tags": ["gradebook", "browser"],
     "body": "My gradebook won't load, it's just a blank white page. My colleagues can open theirs, including a "
             "class we share, and mine works on my phone.",
     "reply": "Your gradebook opens normally in a private window, so one of your browser extensions is most likely "
              "blocking the page. Try turning them off one at a time, starting with ad blockers and writing "
              "assistants."},
    {"title": "Parents' evening booking", "tags": ["feature-request", "parents"],
     "body": "Does Classbridge do parents' evening appointment booking? We're paying for a separate system just for "
             "that."},
]

ARTICLES = {
    "roster-sync": {
        "title": "Syncing classes and rosters from your SIS",
        "intro": "Classbridge keeps your classes, teachers and students in step with your school information system "
                 "(SIS or MIS), either directly or through a rostering service such as Clever or ClassLink.",
        "sections": [
            ("How roster sync works", "Classbridge reads your SIS every night at about 02:00 in your school's time "
             "zone and applies what has changed: new students and staff, class enrolments, set changes and leavers. "
             "A student is added to a class when their enrolment starts and removed when it ends. Changes made in "
             "the SIS during the day appear after the next nightly sync. If you can't wait, an admin can run a sync "
             "straight away with Sync now under Admin > Integrations > Roster sync, at most once an hour."),
            ("Reading the sync history", "Admin > Integrations > Sync history lists every sync with the number of "
             "records created, updated and removed, and any warnings. Skipped enrolments are listed with a reason: "
             "'inactive' means the enrolment's dates put it outside the current session, and 'no matching class' "
             "means the class hasn't been shared with Classbridge. You can download the log as a CSV file to send "
             "to support."),
            ("A student is missing from a class", "First check in your SIS that the student is enrolled in that "
             "class, not only in the school, and that the change was made before the last sync. Then search the "
             "sync history for the student's SIS ID; if their enrolment was skipped, the reason is shown there. "
             "Students added to a synced class by hand are removed again at the next sync if the SIS doesn't list "
             "them, so always make the change in the SIS. When a student is removed from a class, their "
             "submissions and grades are kept, and they come back if the student is enrolled again."),
            ("Rostering with Clever or ClassLink", "If your district rosters through Clever or ClassLink, "
             "Classbridge reads schools, sections and users from that service rather than from the SIS directly. "
             "Only the sections shared with Classbridge in the service's sharing rules are synced, so a missing "
             "class usually needs adding there. Students are matched to their existing Classbridge accounts by SIS "
             "ID. If you see the same student twice after a re-import, contact support before merging or deleting "
             "anything yourself."),
            ("Classes created by hand", "Classes you create yourself in Classbridge, such as clubs, revision groups "
             "or intervention groups, are never changed by the sync. You can add any student to them. Synced "
             "classes show a link icon next to their name and their rosters can only be changed in the SIS."),
        ],
    },
    "sign-in-google-microsoft": {
        "title": "Signing in with Google or Microsoft",
        "intro": "Students and staff sign in to Classbridge with their school Google or Microsoft account. Parents "
                 "use the Classbridge Family app with their own email address instead.",
        "sections": [
            ("How single sign-on works", "On the sign-in page, users choose Sign in with Google or Sign in with "
             "Microsoft and pick their school account. Classbridge matches the account to a user on your roster by "
             "email address. Nobody needs a separate Classbridge password. Younger pupils without an email account "
             "can sign in with a QR login card printed from the class's People page."),
            ("Allowing Classbridge in Google Workspace", "In the Google Admin console, go to Security > Access and "
             "data control > API controls > Manage third-party app access, find Classbridge and set it to Trusted "
             "for your staff and student organisational units. If you use Google's age-based access setting for "
             "users under 18, students can only use apps marked Trusted. When a new Classbridge feature needs an "
             "extra Google permission, students in restricted units can be blocked until Classbridge is trusted "
             "again; we announce such changes in the admin release notes beforehand."),
            ("Allowing Classbridge in Microsoft 365", "The first time someone from your school signs in with "
             "Microsoft, a global administrator must grant consent for the whole organisation. If users see 'Need "
             "admin approval', consent hasn't been granted yet: ask your Microsoft 365 administrator to sign in to "
             "Classbridge and tick 'Consent on behalf of your organisation'. Conditional Access policies that "
             "require a managed device also apply to Classbridge."),
            ("Signing in with the wrong account", "If a student signs in with a personal Gmail or Outlook address, "
             "Classbridge creates a separate account with no classes, so they see an empty homepage. Ask them to "
             "sign out and choose their school account. On shared Chromebooks, check which profile is signed in to "
             "the browser. Admins can stop this by allowing only school domains under Admin > Security > Allowed "
             "domains."),
            ("Sign-in error messages", "- 'Error 400: admin_policy_enforced' or 'Access blocked': your Google "
             "Workspace settings are blocking Classbridge for that user. See Allowing Classbridge in Google "
             "Workspace.\n- 'Need admin approval' or AADSTS65001: Microsoft 365 consent hasn't been granted.\n- 'No "
             "Classbridge account for this email': the user isn't on your roster yet, or is using a different "
             "address.\n- 'Your school has no available licences': see Licences and seats."),
        ],
    },
    "assignments-and-due-dates": {
        "title": "Assignments, due dates and late work",
        "sections": [
            ("Setting an assignment", "Create an assignment from the class page or from the Classbridge Teach app. "
             "Choose the classes or individual students, the due date and time, whether it's marked, and which "
             "gradebook category it belongs to. You can schedule an assignment to appear later, and save it as a "
             "draft to finish on another device."),
            ("Due dates and time zones", "Due times are always shown in your school's time zone, which an admin sets "
             "under Admin > School settings > Time zone. Students and parents see the same due time wherever they "
             "are. A due time of 00:00 means the very start of that day, so anything handed in later that day is "
             "late; to mean 'by the end of the day', choose 23:59. If due times look an hour out for every "
             "assignment, check the school's time zone first."),
            ("Extensions", "To give a student more time, open the assignment, select the student and choose Extend "
             "due date. The student sees their own due date, and work handed in before it isn't counted as late or "
             "penalised. An extension added after the student has already handed in late doesn't change that "
             "hand-in; use Waive late penalty on the submission instead."),
            ("Late work and penalties", "Under Assignment settings > Late work, choose whether late submissions are "
             "accepted and whether an automatic penalty applies, for example 10% per day. If late submissions "
             "aren't accepted, the hand-in button is removed at the due time. You can waive the penalty for a "
             "single student from their submission, and it stays waived if the gradebook recalculates."),
            ("Handing in from the student app", "Students can hand in files, photos and Google or Microsoft "
             "documents from the Classbridge Student app on iOS and Android. Photos taken in the app are converted "
             "to JPEG before upload. Each file can be up to 500 MB; for longer videos, students can upload to their "
             "school Drive or OneDrive and hand in the link. If uploads fail on one kind of device only, check that "
             "the app is up to date."),
        ],
    },
    "gradebook-and-grade-export": {
        "title": "Gradebook and exporting grades to your SIS",
        "sections": [
            ("Categories and weighting", "Group assignments into categories such as Tests, Homework and Classwork, "
             "and give each category a weight under Gradebook settings > Categories, for example Tests 60%, "
             "Homework 20%, Classwork 20%. The overall grade is the weighted average of the category averages. With "
             "weighting turned off, every mark counts by its points."),
            ("Releasing marks to students and parents", "Marks stay private to teachers until you release them. "
             "Release marks for a whole assignment from the assignment page, or turn on 'Release marks when "
             "marked' in the class settings. Students and parents see released marks in the apps and in the weekly "
             "summary email."),
            ("Exporting grades to your SIS", "If your SIS supports grade passback, Classbridge sends each student's "
             "overall grade and the marks of released assignments when you click Gradebook > Export to SIS, and "
             "every night if scheduled export is on. Only released marks are exported. For classes with weighted "
             "categories, the overall grade sent is the weighted grade shown in the gradebook. Exporting again "
             "overwrites the values sent before."),
            ("When the SIS shows a different grade", "Open Gradebook > Export to SIS > History to see the exact value "
             "sent for each student. If the value sent matches the gradebook, the difference comes from the SIS: "
             "most SIS apply their own grading scale and rounding when they turn a percentage into a letter grade. "
             "If the value sent doesn't match, check for unreleased marks, then export again. If it still differs, "
             "contact support with the class name and one student."),
            ("Large gradebooks", "Gradebooks with a lot of assignments, such as two-year courses or combined groups, "
             "open faster one term at a time. Use the Term menu at the top of the gradebook to choose a term. The "
             "overall grade still includes every term."),
        ],
    },
    "quizzes-and-accommodations": {
        "title": "Quizzes, time limits and accommodations",
        "sections": [
            ("Creating a quiz", "Add a quiz from the class page. Questions can be multiple choice, short answer, "
             "matching, numeric or extended writing, and you can reuse questions from your question bank. "
             "Multiple-choice and numeric questions are marked automatically; written answers wait for you to mark "
             "them."),
            ("Time limits and closing times", "A time limit gives each student a fixed time from the moment they "
             "start. A closing time ends the quiz for everyone at a set time, for example the end of the lesson. If "
             "you use both, a student who starts late may get less than the full time limit. For a timed quiz in "
             "a lesson, a time limit on its own is usually enough."),
            ("Extra time and other accommodations", "Set extra time, such as 25% or 50%, on a student's profile under "
             "Accommodations; it applies to every timed quiz they take. Students with extra time can keep going "
             "past the closing time by their extra amount. Accommodations apply to attempts started after they're "
             "saved, so if a student had already started, reopen their attempt from the quiz results. Other "
             "accommodations include read-aloud, the classic quiz player and hiding the timer."),
            ("If a student loses connection", "Answers are saved as the student goes. If their device goes offline, "
             "the timer keeps running, and answers given while offline are sent when it reconnects, unless the "
             "time has run out by then. You can reopen an attempt from the quiz results so the student can finish."),
            ("Accessible quizzes", "The quiz player is designed to work with NVDA, JAWS, VoiceOver and TalkBack, and "
             "with a keyboard alone: Tab moves between questions and the arrow keys choose an answer. Add alt text "
             "to every image in a question, or screen readers can only announce 'image'. If a student has trouble "
             "with the current player, turn on 'Use classic quiz player' under their Accommodations and tell us "
             "what went wrong."),
        ],
    },
    "originality-checks": {
        "title": "Originality (plagiarism) checks",
        "sections": [
            ("Turning on originality checks", "Turn on Check originality in the assignment settings, ideally before "
             "students hand in. For work already handed in, use Check all now on the submissions page. Reports "
             "are usually ready within ten minutes of hand-in."),
            ("Reading the similarity report", "The similarity score is the share of the text that matches other "
             "sources: web pages, published work, and other submissions from your school. Click a match to see the "
             "source side by side. A student's earlier drafts handed in to the same assignment count as sources, "
             "which can give a very high score for their own work; turn on 'Exclude the student's own "
             "submissions' to leave them out. A high score is a prompt to look, not proof of copying."),
            ("Which files can be checked", "Word documents, PDFs with real text, Google Docs, Microsoft Word online "
             "files, plain text and text typed into Classbridge can be checked. Photos, scanned handwriting and "
             "image-only PDFs have no text to compare and are marked 'Not checkable'."),
            ("Reports that stay pending", "If a report is still pending after an hour, choose Run check again. If "
             "several reports in a class stay pending, look for what they have in common, such as being handed in "
             "from Google Drive or being very large, and contact support with a link to the assignment. You can "
             "still mark and release work while a report is pending."),
        ],
    },
    "parent-accounts": {
        "title": "Parent accounts and the weekly summary email",
        "sections": [
            ("Inviting parents with access codes", "Each student has a parent access code. Print letters for a class "
             "or year group from Admin > Parents > Print access letters, or email the codes to the contacts in your "
             "SIS. Parents install the Classbridge Family app (not the Classbridge student app), create an account "
             "with their own email and enter the code. Codes are 8 characters of capital letters and digits and "
             "never contain the letters O or I, so anything that looks like an O is a zero. A code stays valid for "
             "60 days or until an admin resets it."),
            ("Linking more than one child", "Parents add each child with that child's own code, from Family > "
             "Children > Add a child. Children at different schools in the same trust can be linked to one parent "
             "account. If your SIS records the same parent email for several children, turn on Auto-link siblings "
             "under Admin > Parents and they are linked without codes."),
            ("The weekly summary email", "Every Friday at 16:00 parents receive a summary for each linked child: "
             "work due in the coming week, missing and late work, newly released marks and teacher comments. "
             "Parents with several children get one email with a section for each child. Admins can preview the "
             "email, change the day it's sent or resend the latest one under Admin > Parents > Weekly summary."),
            ("When parents don't receive emails", "Check the parent's email address in your SIS first, since it "
             "comes from there. Admin > Parents > Email delivery lists emails that bounced or were blocked, with "
             "the reason. Ask the parent to check their junk folder and to add notifications@classbridge.example "
             "to their contacts. A parent who unsubscribed from the weekly summary can turn it back on in the "
             "Family app."),
            ("Language and email choices", "Parents choose the language of the app and emails in Family > Settings > "
             "Language. They can also choose which emails they receive and turn on phone notifications instead. "
             "Admins can set the language from the SIS home language field under Admin > Parents."),
        ],
    },
    "video-lessons": {
        "title": "Video lessons",
        "sections": [
            ("Uploading a video", "Add a video to any post, assignment or lesson page. MP4 and MOV files up to 10 GB "
             "are accepted. After upload the video shows a Processing label, usually for about as long as the "
             "video itself, and longer for 4K recordings. Students can watch it once the label has gone."),
            ("Captions", "Classbridge adds automatic captions in English, Welsh, French, Spanish and German. To "
             "correct them, open the video and choose Captions > Edit, or upload your own VTT file. Students can "
             "turn captions on from the player."),
            ("Videos that won't play in school", "If videos play at home but not on the school network, your web "
             "filter or firewall is probably blocking our video domain. Ask your network team to allow "
             "*.classbridge.example and media.classbridge-cdn.example, and to exclude them from SSL inspection."),
            ("Playback on iPads, phones and Safari", "Videos are streamed in short pieces, so they start quickly on "
             "slow connections. If a video stops part way through or won't resume after a long pause, refresh the "
             "page or reopen it in the app; it carries on from where the student left off. Keep the Classbridge "
             "apps up to date. If one video keeps stopping for everyone, send us its link."),
        ],
    },
    "licences-and-seats": {
        "title": "Licences and seats",
        "sections": [
            ("How seats are counted", "Your licence covers a number of student seats. Each student currently on roll "
             "uses one seat; students who have left or been archived don't. Parent accounts are always free. Staff "
             "accounts are free on current plans, but some contracts signed before 2023 count staff as seats too; "
             "your order form says which applies to you. Admin > Licences > Seat report lists everyone using a "
             "seat."),
            ("When you reach your licence limit", "When every seat is used, new students can't be activated and see "
             "'Your school has no available licences' when they sign in. Existing students aren't affected. Check "
             "the seat report for anyone who should have been marked as a leaver in your SIS, then contact your "
             "account manager if you need more seats."),
            ("Renewals and expiry", "We send a renewal quote 60 days before your licence ends. If the renewal hasn't "
             "been processed by the end date, your account has a 30-day grace period in which everyone already "
             "using Classbridge carries on, but new students can't be activated. After the grace period the account "
             "becomes read-only until the renewal is received."),
            ("Trusts and districts", "Schools in a trust or district can share one pool of seats, or each school can "
             "have its own. Trust and district admins see seat use for every school under Admin > Licences. To add "
             "a school, contact your account manager."),
        ],
    },
    "new-school-year": {
        "title": "Starting a new school year",
        "sections": [
            ("Preparing for rollover", "Set up the new academic year, its terms and the new timetable in your SIS "
             "before the rollover date shown under Admin > School year. Check the preview, which lists the classes "
             "that will be archived and created. If your SIS isn't ready in time, move the rollover date rather "
             "than pausing the sync."),
            ("What rollover does", "On the rollover date, last year's classes are archived and this year's classes "
             "are created from the new sessions in your SIS, whether they run for the whole year or for one term. "
             "Archived classes are read-only: students and teachers can still see the work, but nothing new can be "
             "posted or handed in. Students move up automatically and keep their accounts."),
            ("Restoring an archived class", "An admin can restore a class under Admin > Classes > Archived > "
             "Restore. If the class is linked to an SIS session that has ended, the next sync archives it again, so "
             "correct the session dates in your SIS first. If current classes were archived at rollover and "
             "restoring doesn't stick, contact support rather than recreating them, so their content isn't lost."),
            ("Hidden, archived or removed?", "A class missing from a teacher's dashboard isn't always archived. "
             "Teachers can hide a class from their own dashboard; 'Show hidden classes' at the bottom brings it "
             "back. If a teacher is taken off a class in the SIS, the class disappears for them but stays live for "
             "students. An archived class shows a read-only banner to everyone."),
        ],
    },
}

QUERIES = [
    {"q": "new student not showing in my class", "answers": ["roster-sync#3", "roster-sync#1"], "kind": "symptom"},
    {"q": "how often does classbridge sync with the MIS", "answers": ["roster-sync#1"], "kind": "plain"},
    {"q": "enrolment skipped: inactive", "answers": ["roster-sync#2", "roster-sync#3"], "kind": "error"},
    {"q": "same student appears twice after clever re-import", "answers": ["roster-sync#4"], "kind": "paraphrase"},
    {"q": "Error 400: admin_policy_enforced", "answers": ["sign-in-google-microsoft#5",
                                                          "sign-in-google-microsoft#2"], "kind": "error"},
    {"q": "pupils cant log in with google but teachers can", "answers": ["sign-in-google-microsoft#2",
                                                                         "sign-in-google-microsoft#5"],
     "kind": "typo"},
    {"q": "kid logs in and has no classes at all", "answers": ["sign-in-google-microsoft#4", "roster-sync#3"],
     "kind": "symptom"},
    {"q": "homework due time is an hour wrong", "answers": ["assignments-and-due-dates#2"], "kind": "symptom"},
    {"q": "give one student more time on an assignment", "answers": ["assignments-and-due-dates#3"], "kind": "task"},
    {"q": "marked late even though he had an extension", "answers": ["assignments-and-due-dates#3",
                                                                     "assignments-and-due-dates#4"],
     "kind": "symptom"},
    {"q": "everyone who handed in on the deadline day shows as late", "answers": ["assignments-and-due-dates#2",
                                                                                  "assignments-and-due-dates#4"],
     "kind": "paraphrase"},
    {"q": "iphone photo homework upload fails", "answers": ["assignments-and-due-dates#5"], "kind": "terse"},
    {"q": "grades in powerschool different from classbridge", "answers": ["gradebook-and-grade-export#4",
                                                                          "gradebook-and-grade-export#3"],
     "kind": "symptom"},
    {"q": "how do I send grades back to our SIS", "answers": ["gradebook-and-grade-export#3"], "kind": "task"},
    {"q": "make tests count 60% and homework 20%", "answers": ["gradebook-and-grade-export#1"], "kind": "task"},
    {"q": "gradebook wont load for my biggest class", "answers": ["gradebook-and-grade-export#5"], "kind": "typo"},
    {"q": "extra time on quizzes for a dyslexic student", "answers": ["quizzes-and-accommodations#3"],
     "kind": "task"},
    {"q": "students with extra time got cut off when the quiz closed", "answers": ["quizzes-and-accommodations#3",
                                                                                   "quizzes-and-accommodations#2"],
     "kind": "symptom"},
    {"q": "quiz submitted itself when the wifi dropped", "answers": ["quizzes-and-accommodations#4"],
     "kind": "symptom"},
    {"q": "screen reader says blank for the answer choices", "answers": ["quizzes-and-accommodations#5"],
     "kind": "symptom"},
    {"q": "plagarism report stuck pending", "answers": ["originality-checks#4"], "kind": "typo"},
    {"q": "similarity 94% but it's matching her own first draft", "answers": ["originality-checks#2"],
     "kind": "symptom"},
    {"q": "can handwritten work that's been scanned be checked for copying", "answers": ["originality-checks#3"],
     "kind": "paraphrase"},
    {"q": "parent code invalid", "answers": ["parent-accounts#1"], "kind": "terse"},
    {"q": "weekly email only talks about one of my children", "answers": ["parent-accounts#3",
                                                                           "parent-accounts#2"], "kind": "symptom"},
    {"q": "parents not getting the friday email", "answers": ["parent-accounts#4", "parent-accounts#3"],
     "kind": "paraphrase"},
    {"q": "lesson videos stop after a few minutes on ipad", "answers": ["video-lessons#4"], "kind": "symptom"},
    {"q": "none of the videos play at school but fine at home", "answers": ["video-lessons#3"], "kind": "symptom"},
    {"q": "Your school has no available licences", "answers": ["licences-and-seats#2", "licences-and-seats#1"],
     "kind": "error"},
    {"q": "do leavers still count towards our licence", "answers": ["licences-and-seats#1"], "kind": "plain"},
    {"q": "all my classes archived at start of year", "answers": ["new-school-year#2", "new-school-year#3"],
     "kind": "symptom"},
    {"q": "class vanished from my dashboard", "answers": ["new-school-year#4", "new-school-year#3"],
     "kind": "paraphrase"},
    {"q": "Hello, i am parent of two children in the school. i make account in the app with code from letter but it "
          "say invalid code, the school give me new letter and the new code work only for my son. how i can add my "
          "daughter also?",
     "answers": ["parent-accounts#1", "parent-accounts#2"], "kind": "nonnative"},
    {"q": "We're a trust with term-based sessions in Arbor. After the summer rollover about 40 of our current "
          "classes went read-only and teachers can't post anything. I restored one and it was archived again "
          "overnight. How do we restore them properly and stop the sync archiving them again?",
     "answers": ["new-school-year#3", "new-school-year#2"], "kind": "long"},
    {"q": "SENCo here. Several students with 25% extra time on their profiles were cut off at the same moment as "
          "the rest of the class in a quiz that closed at the end of the lesson. How should we set up timed quizzes "
          "so their extra time is respected, and can they finish the attempt they lost?",
     "answers": ["quizzes-and-accommodations#3", "quizzes-and-accommodations#2"], "kind": "long"},
]
