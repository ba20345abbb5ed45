"""Pawsitive Practice: practice management for veterinary clinics in the UK, Ireland and a few EU practices.

Writers are receptionists, practice managers, head nurses and vets typing between consults: shorter and
scrappier than office staff, more typos, some all-lowercase, and a few practices whose staff write English as
a second language (Dutch, Polish, Portuguese). Areas: the appointment diary and online booking widget,
patients and owners, vaccination reminders by SMS and email, prescriptions and labels, the controlled drugs
register, reference-lab and in-house analyser results, card terminals and daily takings, insurance claims,
price lists and VAT, stock across sites, the staff rota, the client portal, and data brought over from an old
system.
"""

PRODUCT = "Pawsitive Practice"

STYLE = {
    "lengths": {"oneline": 0.2, "short": 0.35, "medium": 0.3, "long": 0.15},
    "greeting": 0.55,
    "signoff": 0.6,
    "context": (1, 3),
    "rambles": (0, 1),
    "typo_rate": 0.022,
    "careless": 0.5,
    "lowercase": 0.1,
    "no_apostrophes": 0.22,
    "nonnative": 0.65,
    "error_quote": 0.4,
    "hours": (7, 22),
}

STAFF = [("imogen", "Imogen Clarke"), ("devesh", "Devesh Kumar"), ("rhys", "Rhys Llewellyn"),
         ("ana", "Ana Sousa"), ("becca", "Rebecca Nwosu")]

CUSTOMERS = [
    {"name": "Harbourside Veterinary Centre", "plan": "Professional", "seats": 38, "region": "UK",
     "contact": "Fiona McLeod", "sso": None, "writers": ["Sam Whitfield", "Kayleigh Dunn"],
     "notes": "Small animal practice in Plymouth, one main site and a branch surgery. Fiona is practice "
              "manager, Kayleigh runs reception. Moved to Pawsitive from their old system in spring 2026."},
    {"name": "Willowbrook Vets", "plan": "Enterprise", "seats": 120, "region": "UK", "contact": "Andrew Pike",
     "sso": "Microsoft", "writers": ["Megan Hale", "Rob Sutcliffe"],
     "notes": "Group of four practices around Leeds plus a hospital site. Heavy users of stock transfers and "
              "the staff rota; Megan is clinical director, Rob the group operations manager."},
    {"name": "Paws & Claws Animal Hospital", "plan": "Professional", "seats": 54, "region": "UK",
     "contact": "Leanne Corbett", "sso": None, "writers": ["Priya Sandhu"],
     "notes": "Busy first-opinion hospital in Coventry, open late. Uses online booking heavily and "
              "integrated card terminals at three desks."},
    {"name": "Fernhill Equine Practice", "plan": "Professional", "seats": 22, "region": "UK",
     "contact": "Charlotte Ames", "sso": None,
     "notes": "Ambulatory equine vets in Gloucestershire; most work is on yards, invoices sent by email. "
              "Lab work goes to an external reference lab."},
    {"name": "Castlegate Cat Clinic", "plan": "Starter", "seats": 9, "region": "UK", "contact": "Helen Tran",
     "sso": None, "notes": "Feline-only clinic in York, cat friendly accredited. Helen is owner and sole vet "
                           "some days; a lot of in-house bloods."},
    {"name": "Dierenkliniek De Linde", "plan": "Professional", "seats": 31, "region": "NL",
     "contact": "Maarten de Vries", "sso": None, "writers": ["Sanne Bakker"], "voice": "dutch",
     "notes": "Companion animal clinic in Utrecht, uses the English interface. Sanne is head of reception."},
    {"name": "Lakeland Farm & Pet Vets", "plan": "Professional", "seats": 46, "region": "UK",
     "contact": "Graham Tyson", "sso": None, "writers": ["Nicola Birkett"],
     "notes": "Mixed practice in Cumbria: farm, equine and small animal across two sites. Lots of controlled "
              "drugs on the farm cars."},
    {"name": "Greyfriars Veterinary Group", "plan": "Enterprise", "seats": 310, "region": "UK",
     "contact": "Elaine Morrow", "sso": "Microsoft", "writers": ["Jamie Cullen", "Oluwaseun Adeyemi"],
     "notes": "Nine practices across Scotland and the North East; central support office does the price "
              "list, insurance claims and reporting. Account since 2023."},
    {"name": "Brambles Exotic Pet Clinic", "plan": "Starter", "seats": 8, "region": "UK",
     "contact": "Tom Fairley", "sso": None,
     "notes": "Rabbits, reptiles, birds. Tom is the vet and does the admin himself in the evenings."},
    {"name": "Northpoint 24h Emergency Vets", "plan": "Enterprise", "seats": 95, "region": "UK",
     "contact": "Rachel Osborne", "sso": "Google", "writers": ["Ciaran Walsh"],
     "notes": "Out-of-hours and emergency hospital in Manchester, open 24/7. Takes payments through the "
              "night; Ciaran is night team lead."},
    {"name": "Kowalski Veterinary Surgery", "plan": "Starter", "seats": 12, "region": "UK",
     "contact": "Agnieszka Kowalska", "sso": None, "writers": ["Piotr Nowicki"], "voice": "polish",
     "notes": "Independent small animal practice in Leicester, family run. Many Polish-speaking clients."},
    {"name": "Liffey Valley Animal Clinic", "plan": "Professional", "seats": 27, "region": "IE",
     "contact": "Orla Brennan", "sso": None, "writers": ["Declan Moore"],
     "notes": "Two clinics in west Dublin. Orla is practice manager; strong on insurance claims."},
    {"name": "Clinica Veterinaria Atlantico", "plan": "Starter", "seats": 14, "region": "PT",
     "contact": "Joana Ferreira", "sso": None, "voice": "portuguese",
     "notes": "Small clinic in Porto with many British expat clients; uses English templates for them."},
    {"name": "Meadowsweet Mobile Vet", "plan": "Starter", "seats": 3, "region": "UK",
     "contact": "Lucy Barton", "sso": None,
     "notes": "Home-visit vet in Kent, mostly older pets and home euthanasia. Uses the tablet app on the "
              "road."},
]

SLOTS = {
    "pet": ["Bella", "Milo", "Luna", "Alfie", "Daisy", "Teddy", "Poppy", "Biscuit", "Oscar", "Willow",
            "Bramble", "Rolo"],
    "owner": ["Mrs Hughes", "Mr Kapoor", "Janet Brooks", "Mrs Doyle", "Sinead Murphy", "Gareth Jones",
              "Ms Adebayo", "Paul Fenwick"],
    "vaccine": ["booster", "lepto booster", "flu booster", "rabies vaccine", "myxo-RHD vaccine",
                "kennel cough vaccine"],
    "vet": ["Patel", "Okonkwo", "Brennan", "Lindqvist", "Murray", "Chen"],
    "site": ["our Northgate branch", "the branch surgery", "the satellite practice", "our Castle Street site",
             "the new Riverside branch"],
    "drug": ["methadone", "buprenorphine", "ketamine", "morphine", "midazolam", "pethidine"],
    "item": ["Nobivac L4", "Bravecto chews", "Metacam oral suspension", "Apoquel 16mg", "Milbemax tablets",
             "Advocate spot-on"],
    "lab": ["IDEXX", "the reference lab", "Labvista", "our external lab"],
    "terminal": ["the reception terminal", "terminal 2", "the PayPod in consult room 1",
                 "our new PayPod terminal"],
    "insurer": ["Petplan", "Animal Friends", "Agria", "Purely Pets", "ManyPets"],
    "month": ["August", "September", "October"],
}

GREETINGS = ["Hi,", "Hello,", "Hi there", "Morning,", "Hi {staff},", "Hello Pawsitive team,", "Hiya,",
             "Good afternoon,", "Dear support,", "Hi all,"]
SIGNOFFS = ["Thanks,\n{first}", "Thanks {first}", "Many thanks\n{name}\nPractice Manager, {company}",
            "Cheers, {first}", "Kind regards,\n{name}", "{first} (reception)", "Thanks in advance!\n{first}",
            "Best wishes,\n{name}\n{company}"]
VOICE_GREETINGS = {
    "dutch": ["Hello,", "Good day,", "Dear support team,", "Hi {staff},"],
    "polish": ["Hello,", "Dear Sir/Madam,", "Good morning,", "Hello support,"],
    "portuguese": ["Good morning,", "Hello team,", "Dear all,", "Good afternoon,"],
}
VOICE_SIGNOFFS = {
    "dutch": ["Met vriendelijke groet,\n{name}", "Greetings,\n{first}", "Thanks in advance,\n{name}"],
    "polish": ["Regards,\n{name}", "Pozdrawiam,\n{first}", "Thank you very much,\n{name}"],
    "portuguese": ["Best regards,\n{name}", "Cumprimentos,\n{name}", "Thank you,\n{first}"],
}
CONTEXT = [
    "I'm the practice manager, writing on behalf of the vets who don't have time.",
    "Sorry if this is short, I'm typing between consults.",
    "We've got our RCVS practice standards visit coming up so I'd like it sorted.",
    "For context we're a {n}-vet practice with two sites.",
    "Monday mornings are chaos here so apologies for the delay in reporting it.",
    "Our usual IT person is on holiday this week.",
    "We had a power cut on {weekday} but I don't think that's related.",
    "Reception has been flat out with a kennel cough outbreak locally.",
    "I've only been at the practice a month so I may be missing something obvious.",
    "The vets have asked me to raise it with you before it gets worse.",
    "We have about {nn} staff across the practice.",
    "Our head nurse is the one who spotted it.",
]
RAMBLES = [
    "It's been a long week to be honest. We're two vets down with one on maternity leave and a locum who "
    "cancelled last minute, the phones haven't stopped, and the last thing reception needs is the system "
    "giving them extra work. I know that's not your problem but it's why I'm a bit short on patience.",
    "We only moved across to you earlier this year after fifteen years on the old system, and on the whole "
    "the team like it a lot more, especially the nurses. But every so often something odd happens and nobody "
    "here really knows where to look, so apologies if this turns out to be something we've set up wrong.",
    "Our senior partner is not very computer minded and every time something like this happens he asks "
    "whether we should go back to paper. I'd really like to be able to tell him what went wrong and that "
    "it's fixed.",
    "I'm writing this at home after a late shift because I won't get a minute tomorrow. We had an RTA dog "
    "come in at six and a calving on the farm side, so it's been one of those days.",
]
TRIED = [
    "I've logged out and back in, and restarted the PC.",
    "We tried it on a different computer in the back office, same thing.",
    "I checked the help pages but couldn't see anything that matched.",
    "I've asked the other receptionists and nobody changed any settings.",
    "Tried clearing the browser cache like the last support person suggested.",
    "I checked a couple of records by hand and they look right to me.",
]
ASKS = ["Can someone have a look please?", "Is this a known issue?", "What do we need to do?",
        "Please help, this is urgent for us.", "Can you fix this today?", "Is it something on your end?",
        "Let me know if you need anything else.", "Could you call me back on the practice number?",
        "How do we stop it happening again?"]
ERROR_INTROS = ["It says \"{error}\"", "The error is: {error}", "Message on screen: \"{error}\"",
                "We get this - {error}", "In the log it shows \"{error}\".",
                "Screenshot attached, it says {error}"]
FOLLOWUP_WAIT = ["Any news on this?", "Hi, still waiting on this one please.",
                 "Chasing - this is still happening.",
                 "Hello? We are still having this problem today.",
                 "Can someone update me please, reception are asking."]
FOLLOWUP_THANKS = ["That's sorted it, thank you!", "Brilliant, thanks {staff}.", "All working now, cheers.",
                   "Thanks, I'll let the team know.", "Great, thank you so much for the quick reply.",
                   "ok thanks, looks right now"]
REPLY_INFO = ["Screenshot attached.", "The patient is {pet}, owner {owner}.",
              "It was {weekday} afternoon, about {time}.", "Happy for you to log in and look.",
              "Client number is {num} if that helps.", "It's at {site}."]

STAFF_OPENERS = ["Hi {first},", "Hi {first}, thanks for letting us know.", "Hello {first},",
                 "Hi {first}, thanks for the detail, that really helps.",
                 "Hi {first}, sorry you've had this."]
STAFF_SIGNOFFS = ["Thanks,\n{staff}", "Best wishes,\n{staff} | Pawsitive Practice Support", "{staff}",
                  "Kind regards,\n{staff}", ""]
STAFF_ASKS = [
    "Could you send me the name of one affected patient or client, and roughly when it happened?",
    "Could you send a screenshot of what you're seeing? Please crop out client details if you can.",
    "Is this happening at all your sites, or only one?",
    "Would you be happy for us to log in to your account with support access to take a look?",
]
STAFF_HOLDING = [
    "Thanks for reporting this. I've passed it to our product team and I'll update you as soon as I hear "
    "back.",
    "I can reproduce this on your account, so I've escalated it and will keep you posted today.",
    "We're looking into it now. I'll come back to you by the end of the day.",
]
INTERNAL_GENERIC = ["Asked for an example patient and time.", "Customer granted support access for 48h.",
                    "Checked practice settings, nothing obvious yet. Waiting on screenshot.",
                    "Called the practice, no answer, left voicemail."]
TAG_EXTRAS = ["bug", "question", "escalated", "how-to", "complaint-risk", "multi-site"]
VAGUE_TITLES = ["Problem with the system", "Urgent!!", "Help please", "Question", "Something wrong",
                "Issue since update", "Not working"]

CLUSTERS = [
    {
        "key": "sms-gateway-numbers",
        "cause": "Since the move to the new SMS gateway on 8 September, mobile numbers stored without a "
                 "leading 0 or +44 (as imported from older systems) are rejected as invalid: reminder and "
                 "appointment texts to those clients are dropped",
        "tags": ["reminders", "sms", "vaccinations"],
        "priority": ["high", "normal", "high"],
        "titles": ["Clients not receiving vaccination reminder texts", "SMS reminders not going out",
                   "Reminder texts missing since September",
                   "Booster reminders - clients say they got nothing",
                   "Texts showing failed but number is right"],
        "symptoms": [
            "Several clients have turned up late for boosters and they all say the same thing, they never "
            "got a text from us. The reminder run did go out on {weekday}.",
            "Our reminder texts seem to reach some owners and not others. Emails are fine. It's mostly our "
            "older clients who are missing out.",
            "The SMS log shows a lot of reminders with status Failed and no reason I can make sense of. "
            "About {nn} of them from the last batch.",
            "A client rang to complain that {pet} is overdue the {vaccine} and nobody told her. Her mobile "
            "number is on the record and looks right to me, apart from it starting with a 7.",
            "Appointment confirmation texts have stopped for some people. The same client gets the email "
            "confirmation but not the SMS.",
            "Vaccine uptake this month dropped a lot, and when I checked, half the reminder texts were never "
            "delivered. The numbers work when we ring them from the surgery phone.",
            "sms reminders failing for loads of clients since about the second week of september. nothing "
            "changed our side",
        ],
        "details": [
            "The ones that fail seem to be clients who came over from our old system.",
            "Clients we've added ourselves since we started with you get their texts fine.",
            "We have plenty of SMS credit left, I checked.",
            "If I retype the number on the client record and send a test, it works.",
            "It's roughly a third of our client list.",
        ],
        "errors": ["Failed: invalid destination", "SMS status: REJECTED (E164 format required)",
                   "Delivery failed - destination not valid"],
        "staff_cause": [
            "We moved to a new SMS gateway on 8 September and it's stricter about number format. Numbers "
            "that were imported without the leading 0 or +44 (they start with 7) are now rejected as "
            "invalid, so those texts never leave our system.",
            "The failing messages all go to mobile numbers stored as 7xxxxxxxxx, with no 0 or country code. "
            "The old SMS provider guessed the UK prefix; the new gateway doesn't, and rejects them.",
            "This one is on our side: since the gateway change, numbers saved without a leading zero fail "
            "validation and the reminder is dropped instead of being flagged to you.",
        ],
        "internal": [
            "Another E164 rejection since gateway switch (SMS-311). Ran number normaliser for this practice, "
            "re-queued last 2 reminder batches.",
            "Same as SMS-311: legacy-imported mobiles missing leading 0. Normalised {nn} numbers.",
        ],
        "fixes": [
            "We've corrected the stored numbers on your account (adding +44 where the leading 0 was missing) "
            "and re-sent the failed reminders from the last two batches. Future imports are normalised "
            "automatically.",
            "Until the clean-up has run on your account you can resend from Reminders > Sent > Failed after "
            "editing the number, but we expect every number to be corrected by tomorrow.",
        ],
        "asks": ["Could you send me one or two clients whose texts failed, and the date of the "
                 "reminder run?"],
        "near": ["sms-consent-off", "sms-credit-ran-out"],
        "near_clusters": ["quick-vacc-no-reset"],
    },
    {
        "key": "quick-vacc-no-reset",
        "cause": "Vaccinations recorded with the 'Quick vaccinate' button (release 3.8) don't complete the "
                 "pending reminder: owners of vaccinated animals still get overdue reminders",
        "tags": ["reminders", "vaccinations", "consults"],
        "priority": ["normal", "high"],
        "titles": ["Overdue reminders for pets already vaccinated",
                   "Clients getting booster reminders after the jab",
                   "Reminder says overdue but vaccine is on record", "Wrong vaccination reminders going out",
                   "Angry clients - 'your pet is overdue' messages"],
        "symptoms": [
            "We've had a run of clients ringing up annoyed because they got an 'overdue vaccination' text "
            "for a pet we vaccinated a few weeks ago.",
            "{owner} came in to show us the reminder email for {pet}'s {vaccine}. The vaccine is on the "
            "clinical record, given on {date}, but the reminder still went out.",
            "The reminders list shows animals as overdue that have definitely had their vaccine, it's right "
            "there in the history with the batch number.",
            "Our nurses started using the new quick vaccinate button in consults and since then the reminder "
            "list is a mess. Pets done in consults still show as pending.",
            "Reminder for {pet} still sitting as due even after the vet recorded the vaccination. A second "
            "reminder went out this morning and the owner is not happy.",
            "Vaccine reminders are being sent twice - once before and once after the vaccine was given. The "
            "second one says overdue.",
            "Is it possible reminders are not updating? Reception now have to check the whole overdue list "
            "by hand before every send.",
        ],
        "details": [
            "When we add the vaccine the old way, as an item on the invoice, the reminder updates fine.",
            "It seems to be since the update at the start of the month.",
            "It's across all our vets, not one person doing it wrong.",
            "The next due date on the vaccination record itself is correct, only the reminder is wrong.",
        ],
        "staff_cause": [
            "The Quick vaccinate button we added in 3.8 records the vaccination and sets the next due date, "
            "but it doesn't close the reminder that was already pending. The reminder job still sees it open "
            "and sends the overdue message.",
            "This is a bug in the quick vaccinate flow: it never marks the existing reminder as completed, "
            "so the animal stays on the overdue list even though the vaccine is recorded.",
            "Vaccines added through Quick vaccinate aren't linked to the pending reminder, unlike vaccines "
            "added as an invoice item, so reminders for those animals are never completed.",
        ],
        "internal": [
            "Quick vaccinate not completing reminders (REM-204). Ran reconciliation to close reminders with "
            "a matching vaccination in the last 60 days.",
            "REM-204 again. Practice advised to use the invoice item route until 3.8.2.",
        ],
        "fixes": [
            "We've run a clean-up on your account that completes any pending reminder where a matching "
            "vaccination has been recorded, so your overdue list is right again. The fix for the button "
            "itself is in 3.8.2, out this week.",
            "Until 3.8.2 is out, please record vaccinations by adding the vaccine item to the consult "
            "invoice rather than using Quick vaccinate; that route completes the reminder properly.",
        ],
        "near": ["vaccine-given-elsewhere", "reminder-lead-time"],
        "near_clusters": ["import-date-swap"],
    },
    {
        "key": "widget-site-timezone",
        "cause": "Sites added since the multi-site upgrade have no time zone and the booking widget treats "
                 "them as UTC: during British Summer Time online bookings at those sites land an hour later "
                 "in the diary than the time the client picked",
        "tags": ["online-booking", "appointments", "multi-site"],
        "priority": ["normal", "high"],
        "titles": ["Online bookings showing wrong time in diary", "Clients turning up an hour early",
                   "Booking widget times off by one hour",
                   "Online appointment time doesn't match confirmation",
                   "Widget bookings an hour out at {site}"],
        "symptoms": [
            "Clients who book online are arriving an hour before their appointment. Their confirmation email "
            "says 9:30 but in our diary it shows 10:30.",
            "Every online booking at {site} lands an hour later in the diary than the time the client "
            "picked. Online bookings at our main practice are fine.",
            "We had two clients today who booked online, both insist they booked for the morning and we had "
            "them down for an hour later. One of them was a poorly rabbit so not ideal.",
            "The booking widget offers a 17:50 slot but we close at 18:00, and the appointment then shows at "
            "18:50 in the diary, after we've all gone home.",
            "Online bookings at our new branch are all shifted by one hour. Phone bookings are fine. Somehow "
            "the time moves between the widget and the diary.",
            "client booked online for 8.40, diary says 9.40, confirmation text says 8.40. which one is "
            "right??",
            "Our new surgery opened in {month} and since day one the online bookings there have been an hour "
            "out. I assumed clients were making mistakes but it's every single one.",
        ],
        "details": [
            "It's only the site we added this year.",
            "The reminder text the client gets also shows the original time, not the diary time.",
            "We've had to ring every online booking to confirm the time.",
            "The widget on our website shows the right opening hours, it's where the booking ends up that's "
            "wrong.",
        ],
        "staff_cause": [
            "Your newer site was created after our multi-site upgrade and has no time zone saved. The widget "
            "treats a site with no time zone as UTC, so during British Summer Time every online booking is "
            "stored an hour later than the client chose.",
            "The hour's difference is the time zone: the branch has none set, so the widget converts from "
            "UTC instead of UK time. Sites set up before the upgrade got Europe/London automatically, which "
            "is why your main practice is fine.",
        ],
        "internal": [
            "Site tz null -> widget assumes UTC (BOOK-158). Set Europe/London on the site, checked upcoming "
            "online bookings.",
            "Another BOOK-158. New sites since the multi-site release are missing a timezone.",
        ],
        "fixes": [
            "I've set the site's time zone to Europe/London, so new online bookings will land at the right "
            "time. Bookings already made are still an hour out, so please check the online ones for the next "
            "few weeks; you can filter the diary by source 'Online'.",
            "You can check this under Settings > Sites > (the branch) > Time zone; it should say "
            "Europe/London. A change so new sites default to the practice's time zone is on its way.",
        ],
        "near": ["rota-not-published-widget", "widget-cached-page"],
    },
    {
        "key": "widget-ignores-blocks",
        "cause": "Recurring diary blocks made with the new block tool (release 3.7) aren't passed to the "
                 "online booking widget: clients book online into surgery lists, lunch breaks and meetings",
        "tags": ["online-booking", "diary", "appointments"],
        "priority": ["normal", "high", "normal"],
        "titles": ["Online clients booking into our lunch break",
                   "Widget letting people book during surgery time",
                   "Double bookings from online booking", "Blocked time showing as available online",
                   "Online booking ignoring diary blocks"],
        "symptoms": [
            "We've blocked out 12:30 to 13:30 every day for lunch but clients keep booking online right into "
            "it.",
            "Clients are booking online into our operating mornings. The diary clearly shows the surgery "
            "block but the widget offers the slots anyway.",
            "We keep getting double bookings from the online system. Reception sees a consult booked on top "
            "of a block that says 'Dentals - no consults'.",
            "Our Thursday team meeting is blocked in the diary every week but someone booked a vaccination "
            "online at 8:30 right in the middle of it.",
            "The online widget shows loads of availability on Tuesday mornings when Dr {vet} is in theatre. "
            "Where is it getting these slots from?",
            "blocks in diary not respected by online booking. phone bookings cant go in the blocked time but "
            "online ones can",
            "Since we set up repeating blocks for the new surgery schedule we get online appointments in "
            "them nearly every day. The one-off blocks from before seem to work.",
        ],
        "details": [
            "The blocks are weekly repeating ones we set up in {month}.",
            "Older blocks we put in one at a time still seem to work.",
            "We use the widget on our website and on our Facebook page.",
            "Staff booking from the diary get the warning, so it's only online.",
        ],
        "staff_cause": [
            "Blocks created with the new recurring block tool aren't included when we work out online "
            "availability. The widget only knows about the older single blocks, so it offers slots inside "
            "your recurring ones.",
            "It's a gap in our online availability: since 3.7 recurring blocks are stored differently and "
            "the booking widget doesn't read them, so it thinks that time is free.",
        ],
        "internal": [
            "Recurring blocks not in widget availability feed (BOOK-171). Workaround: one-off blocks or "
            "limit online hours per appointment type.",
            "BOOK-171 again, recurring lunch blocks.",
        ],
        "fixes": [
            "The fix went out last night, so the widget now respects recurring blocks. Online bookings "
            "already made inside a block need moving by hand; the diary filter 'Source: Online' will find "
            "them.",
            "Until the fix is out, the safest workaround is to set online hours per appointment type "
            "(Settings > Online booking > Appointment types) so the widget doesn't offer those times at all.",
        ],
        "near": ["online-duration-short", "rota-not-published-widget"],
        "near_clusters": ["widget-site-timezone"],
    },
    {
        "key": "cd-void-no-reversal",
        "cause": "Voiding or crediting an invoice line for a controlled drug returns the stock but writes no "
                 "reversing entry in the CD register: the register's running balance drifts from the "
                 "physical count",
        "tags": ["controlled-drugs", "cd-register", "invoicing"],
        "priority": ["high", "high", "urgent"],
        "titles": ["CD register balance doesn't match the safe", "Controlled drug running balance wrong",
                   "Discrepancy in {drug} register", "CD check failing every week", "{drug} register out"],
        "symptoms": [
            "Our weekly CD check doesn't add up. The register says we should have less {drug} than is "
            "actually in the safe.",
            "The running balance in the controlled drugs register for {drug} is out by {n} ml compared with "
            "the physical stock. We've gone through every entry and can't find a missing one.",
            "Our head nurse has found discrepancies in the CD register on three different drugs this month. "
            "The stock level on the inventory screen agrees with the bottles, the register doesn't.",
            "We're due an inspection soon and our CD register balances are wrong. The register is lower than "
            "what is physically in the cabinet.",
            "A client returned unused tablets and we credited the invoice. The stock went back up but "
            "nothing appeared in the register. Is that normal?",
            "cd register is off again for {drug}, physical count says one thing and the register another. "
            "this is a legal record so we need this fixing asap",
            "The register for {drug} doesn't match the safe. Looking back, every mismatch is on a day when "
            "an invoice was cancelled or edited at the desk.",
        ],
        "details": [
            "The inventory stock figure matches the physical count, it's only the register that's off.",
            "We void quite a lot of invoice lines when vets change their mind at the desk.",
            "The difference always matches something that was dispensed and then cancelled.",
            "Our practice standards assessment is in {month}.",
        ],
        "errors": ["CD balance check failed: register 42.0 ml, stock 45.0 ml",
                   "Running balance mismatch: {drug}"],
        "staff_cause": [
            "When a controlled drug line is voided or credited on an invoice, the stock goes back into "
            "inventory but no matching entry is written to the CD register. The register still shows the "
            "supply, so its running balance is lower than the real stock.",
            "The mismatches all line up with voided or credited invoice lines. That route reverses the stock "
            "but skips the register, which is a bug on our side.",
            "Your register entries are right as far as they go; what's missing are reversals for the "
            "cancelled supplies. Voiding an invoice line doesn't create one at the moment.",
        ],
        "internal": [
            "CD void, no register reversal (CD-77). Sent list of affected voids so they can annotate the "
            "register.",
            "Another CD-77. Sent void report, advised correction entries with reason 'invoice void'.",
        ],
        "fixes": [
            "I've sent you a report of every voided or credited controlled drug line since {month}. For each "
            "one, add a correction entry in the register (CD register > Add entry > Correction) with the "
            "reason 'invoice voided' and the invoice number; the balance will then match. Nothing in the "
            "register is ever deleted, so the audit trail stays intact.",
            "A fix that writes the reversing entry automatically is in testing. Until then, please add a "
            "correction entry whenever you void or credit a controlled drug line.",
        ],
        "asks": ["Which drug is it, and roughly from which date did the balance start to drift?"],
        "near": ["cd-breakage-not-recorded", "cd-units-mismatch"],
    },
    {
        "key": "label-template-57mm",
        "cause": "Release 3.9 reset the prescription label template to the 57 mm layout: on practices' 89 x "
                 "36 mm label printers the dosage instructions and footer are cut off",
        "tags": ["prescriptions", "labels", "printing"],
        "priority": ["high", "normal"],
        "titles": ["Prescription labels cut off", "Dosage instructions missing on labels",
                   "Labels printing wrong since update", "Drug labels half printed", "Label text squashed"],
        "symptoms": [
            "Our medicine labels are cutting off halfway through the instructions. The client name and drug "
            "print but 'give one tablet twice daily with food' stops after 'twice'.",
            "Since the update the dispensing labels come out with the text squashed into the left side and "
            "the rest of the label blank.",
            "We can't hand out meds with half a label. The dosage line is chopped on every label from every "
            "printer.",
            "Prescription labels look different since last week, the practice address at the bottom has gone "
            "and the instructions are truncated.",
            "Labels from all four consult rooms print cut off, so it's not one printer. We've been "
            "handwriting them all morning.",
            "label printing broken. 'for animal treatment only' line missing off the bottom",
        ],
        "details": [
            "We use the bigger 89 x 36 mm labels, same as always.",
            "Printing a test page from Windows looks fine.",
            "It started after the update on {weekday}.",
            "The preview on screen looks okay, it's the printed label that is wrong.",
        ],
        "staff_cause": [
            "The 3.9 update reset the label template to our default 57 mm layout for some practices. Your "
            "printers use 89 x 36 mm labels, so the instructions and footer don't fit and get cut off.",
            "It isn't your printers: the label template on your account was switched to the small 57 mm size "
            "in the last release, so the longer lines are truncated.",
        ],
        "internal": ["3.9 label template reset to 57mm (RX-96). Restored 89x36 template for practice.",
                     "RX-96 again, all printers affected."],
        "fixes": [
            "I've set your template back to 89 x 36 mm. Please close and reopen Pawsitive Practice on each "
            "PC and print a test label from Settings > Printing > Labels.",
            "You can change it yourself under Settings > Printing > Labels > Label size: choose 89 x 36 mm "
            "and save.",
        ],
        "near": ["printer-driver-paper-size"],
    },
    {
        "key": "lab-branch-prefix",
        "cause": "Since the lab integration update on 15 September, results are matched on a site-prefixed "
                 "requisition ID: tests requested at branch sites don't match and land in the Unmatched "
                 "results inbox",
        "tags": ["lab", "integrations", "results"],
        "priority": ["high", "normal", "high"],
        "titles": ["Lab results not attaching to patients", "Results stuck in unmatched inbox",
                   "Blood results missing from clinical record", "Unmatched results inbox filling up",
                   "Lab results not coming through at {site}"],
        "symptoms": [
            "Blood results from {lab} aren't showing on the patient records any more. They all seem to go "
            "into the Unmatched results inbox and we have to attach them by hand.",
            "Our vets are chasing results that came back hours ago. They're sitting in unmatched instead of "
            "on the patient.",
            "The unmatched results inbox has {nn} items in it. Normally it's empty or one or two at most.",
            "Results for tests sent from our branch surgery don't link to the animal. Tests sent from the "
            "main hospital work fine.",
            "Dr {vet} nearly missed a high potassium result because it never appeared on {pet}'s record, it "
            "was sitting in the lab inbox unmatched. This could have been serious.",
            "lab results not matching to patient, have to search and attach every one manually, since mid "
            "september",
            "Every requisition we send to {lab} from {site} comes back unmatched, even though the "
            "requisition number is printed on the result.",
        ],
        "details": [
            "We have {n} sites and only the main one is fine.",
            "The results themselves are complete, it's just the link to the patient.",
            "The requests are made in Pawsitive Practice as usual, not on the lab's website.",
            "Our lab rep says everything is normal on their end.",
        ],
        "errors": ["No matching requisition for ID {num}", "Result unmatched: requisition not found"],
        "staff_cause": [
            "Since our lab integration update on 15 September, results are matched using a requisition ID "
            "that includes the site prefix. Requisitions raised at your branch sites were sent without the "
            "prefix, so the results come back with an ID we can't find.",
            "The results aren't matching because of the site prefix on the requisition number. Tests raised "
            "at the main site carry it, tests from branches don't, so branch results fall into Unmatched.",
        ],
        "internal": ["LAB-233: branch requisitions missing site prefix since 15/09. Bulk-matched unmatched "
                     "inbox.",
                     "LAB-233 again, multi-site practice. Re-queued matching."],
        "fixes": [
            "I've re-run the matching on your Unmatched inbox and {nn} results are now on their patients; "
            "please check the few that remain. New requisitions from branches will carry the prefix from "
            "tomorrow's release.",
            "Until the release, results from branch sites will still need attaching from the Unmatched "
            "inbox: open the result, search for the patient and click Attach.",
        ],
        "near": ["lab-portal-requisition", "analyser-offline"],
        "near_clusters": ["lab-feline-ranges"],
    },
    {
        "key": "lab-feline-ranges",
        "cause": "The reference lab's new species code for cats ('FEL') isn't in the species mapping: cat "
                 "results import with the default canine reference ranges and are wrongly flagged high or "
                 "low",
        "tags": ["lab", "results", "reference-ranges"],
        "priority": ["normal", "high"],
        "titles": ["Cat bloods all flagged abnormal", "Wrong reference ranges on feline results",
                   "Lab results showing dog ranges for cats", "Every cat result flagged high",
                   "Reference ranges wrong on imported results"],
        "symptoms": [
            "All our cat blood results from the lab come in with half the values flagged red. The vets say "
            "the numbers are normal for a cat.",
            "The reference ranges on a feline biochemistry profile look like dog ranges. Glucose and "
            "creatinine flagged high on a perfectly healthy cat.",
            "{pet}'s bloods are all flagged as abnormal and the owner saw it in the portal and panicked. The "
            "vet says everything was within normal limits for a cat.",
            "Results for dogs look normal, but every cat result from the external lab is full of H and L "
            "flags.",
            "Our in-house analyser results for cats are fine. Only the ones imported from {lab} have the odd "
            "ranges.",
            "feline results ranges wrong since about 2 weeks. the species on the lab report says FEL",
            "Is there a problem with the lab import? Our vets have stopped trusting the flags because cats "
            "keep coming up abnormal.",
        ],
        "details": [
            "The lab's own PDF report shows the right ranges.",
            "Rabbits look odd too, now that I check.",
            "The species on the patient record is definitely cat.",
            "It started around when the lab changed their report layout.",
        ],
        "errors": ["Species code FEL not mapped, using default ranges"],
        "staff_cause": [
            "The lab started sending cats with a new species code, FEL, which wasn't in our species mapping. "
            "When we can't map a species we fall back to the default ranges, which are canine, so feline "
            "values get flagged wrongly.",
            "The values are right but the ranges aren't: the import didn't recognise the lab's new cat "
            "species code, so it used dog reference ranges.",
        ],
        "internal": ["Feline species code FEL unmapped (LAB-241). Added mapping; re-flagging results since "
                     "the 1st."],
        "fixes": [
            "We've added the new code to the mapping and re-applied the right ranges to results imported "
            "since the change. The flags on those results are corrected; the numbers themselves never "
            "changed.",
            "If you need a result before we re-flag it, the lab's PDF attached to the result shows the "
            "correct feline ranges.",
        ],
        "near": ["patient-species-wrong"],
        "near_clusters": ["lab-branch-prefix"],
    },
    {
        "key": "terminal-timeout-double-charge",
        "cause": "The card terminal integration gives up after 60 seconds and marks the payment failed while "
                 "the terminal is still waiting for the PIN: receptionists retry and clients are charged "
                 "twice",
        "tags": ["payments", "card-terminal", "invoicing"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Client charged twice for one invoice", "Card payment failed but money taken",
                   "Double charge on card terminal", "Terminal payment timing out",
                   "Payment shows failed, client's bank says paid"],
        "symptoms": [
            "A client phoned to say she'd been charged twice for her dog's consultation. On our side the "
            "first payment says failed and the second went through.",
            "Card payments keep showing as failed on screen while the terminal still says 'enter PIN'. The "
            "client puts the PIN in and it's approved, but the invoice still says unpaid.",
            "We've had {n} double charges this week. All bigger bills where the client had to put their PIN "
            "in rather than tap.",
            "The terminal took the money for a £{amount} surgery bill but Pawsitive said the payment had "
            "failed, so the receptionist tried again and charged the owner a second time.",
            "When the client is slow with the PIN the payment screen gives up and shows an error. We then "
            "don't know if they've paid or not.",
            "At the end of the day the terminal total is higher than the card total in the system, and the "
            "difference is always a payment that shows as failed.",
            "payment timed out on screen but the terminal printed an approved receipt. what do we do",
        ],
        "details": [
            "Contactless under the limit seems fine, it's the PIN ones.",
            "It's happening on {terminal}.",
            "We've had to refund a few clients from the terminal's own menu.",
            "It happens more when it's busy and clients are fumbling for their cards.",
        ],
        "errors": ["Payment failed: terminal did not respond (timeout)", "Terminal timeout after 60s",
                   "Transaction status unknown"],
        "staff_cause": [
            "Our terminal integration waits 60 seconds for the result. Chip and PIN payments often take "
            "longer, so Pawsitive gives up and marks it failed while the terminal carries on and takes the "
            "payment. Retrying then charges the client again.",
            "The payment isn't really failing: our integration times out before the terminal finishes a PIN "
            "transaction, shows 'failed', and the terminal approves it anyway.",
        ],
        "internal": ["Terminal 60s timeout vs PIN flow (PAY-402). Raising to 180s plus status poll next "
                     "release.",
                     "PAY-402 double charge. Talked practice through refund on the terminal."],
        "fixes": [
            "Before retrying a payment that shows as failed, check the terminal's last transaction (Menu > "
            "Last receipt). If it was approved, record it on the invoice with 'Mark as paid by card' and the "
            "terminal's reference. We're extending the timeout and adding a status check in the next "
            "release.",
            "For the duplicate charges, refund the second transaction from the terminal itself; the invoice "
            "only needs the one payment.",
        ],
        "near": ["card-preauth-pending", "terminal-offline-wifi"],
        "near_clusters": ["takings-report-utc"],
    },
    {
        "key": "claims-legacy-history",
        "cause": "Insurance claim packs leave out clinical history imported from the previous system (stored "
                 "as legacy notes): insurers pend or reject claims for missing history",
        "tags": ["insurance", "claims", "clinical-history"],
        "priority": ["normal", "high"],
        "titles": ["Insurance claims being rejected - missing history", "{insurer} says claim has no history",
                   "Claims pended for full clinical history", "Clinical history not attached to claims",
                   "Insurer keeps asking for history we already sent"],
        "symptoms": [
            "{insurer} have pended three of our claims this week asking for the full clinical history. The "
            "claims went through Pawsitive with history ticked.",
            "Claims for older patients keep coming back asking for history. Claims for newer patients go "
            "through fine.",
            "The claim form PDF only has history from when we moved over to you. Everything before that is "
            "missing, even though we can see it on the patient record.",
            "Clients are ringing us because their insurer has told them we didn't send the history. It's "
            "embarrassing, we did send it.",
            "When I download the claim pack the clinical history stops at our go-live date. {pet} has been "
            "with us since she was a puppy.",
            "insurance claims rejected 'insufficient clinical history'. pet been with us 6 years, all on "
            "record",
            "We now have to print the old notes and email them to the insurer separately for every claim on "
            "an older patient.",
        ],
        "details": [
            "The old history shows on the patient under Legacy notes.",
            "It's every insurer, not just one.",
            "We moved to Pawsitive Practice from our old system last year.",
        ],
        "errors": ["Claim pended: insufficient clinical history",
                   "Additional information required: full history"],
        "staff_cause": [
            "The claim pack builds the history from clinical records created in Pawsitive Practice. History "
            "brought over from your previous system is stored as legacy notes, and those aren't included, so "
            "insurers only see history since you moved.",
            "The history on these claims is incomplete because legacy notes from the import aren't part of "
            "the claim attachment. That's a gap in our claims feature rather than anything you've done.",
        ],
        "internal": ["Claims pack excludes legacy notes (INS-58). Workaround: attach legacy notes PDF by "
                     "hand."],
        "fixes": [
            "Until we include legacy notes automatically, you can add them to a claim: open the claim, "
            "Attachments > Add > Legacy notes (PDF), then submit. For claims already pended, add the "
            "attachment and choose Resubmit.",
        ],
        "near": ["insurer-pre-existing", "policy-number-wrong"],
    },
    {
        "key": "price-import-vat",
        "cause": "The CSV price list import drops the 'price includes VAT' flag on the items it updates: VAT "
                 "is added on top of prices that already include it",
        "tags": ["invoicing", "vat", "price-list"],
        "priority": ["high", "normal"],
        "titles": ["Invoices 20% too high", "VAT being added twice", "Prices wrong after price list upload",
                   "Clients overcharged since price update", "Invoice totals don't match our price list"],
        "symptoms": [
            "After we uploaded our new price list, invoices are coming out about 20% higher than our prices. "
            "A £45 consult is charging £54.",
            "A client queried her bill: {item} is on our price board at £{amount} but the invoice added VAT "
            "on top.",
            "Our practice manager updated prices with the spreadsheet import on {weekday} and now the totals "
            "are wrong on most items.",
            "VAT appears to be charged twice on a lot of items. Items we edited by hand are fine.",
            "Reception noticed the card terminal amounts are higher than the prices on our website. It's "
            "every item that came in with the price update.",
            "The price list screen says the consult is £48.00 but the invoice line comes out at £57.60.",
            "prices includng vat now have vat added again after the import, how do we undo",
        ],
        "details": [
            "Our CSV had the prices including VAT, same as the template.",
            "The 'Price includes VAT' box is unticked on those items now. I'm sure it was ticked before.",
            "We've had to manually discount several invoices today.",
        ],
        "staff_cause": [
            "The price list import doesn't carry over the 'price includes VAT' setting, so imported items "
            "were saved as ex-VAT. The invoice then adds 20% on top of a price that already includes it.",
            "It's the import: every item it updated lost its VAT-inclusive flag, which is why VAT is counted "
            "twice on those lines.",
        ],
        "internal": ["Price import drops vat_inclusive (INV-140). Restored flag on items touched by the "
                     "import."],
        "fixes": [
            "I've restored the 'Price includes VAT' setting on every item your import changed. New invoices "
            "will be correct; for invoices already issued you can credit the difference from the invoice's "
            "Adjust menu.",
            "Please don't re-run the import until the fix is out next week; if you need to change prices "
            "before then, edit them on the price list screen.",
        ],
        "near": ["price-rise-scheduled", "health-plan-expired"],
    },
    {
        "key": "stock-transfer-tablet",
        "cause": "Stock transfers received in the tablet app don't book the stock in at the receiving site: "
                 "it shows negative there and automatic reorders fire",
        "tags": ["inventory", "stock", "multi-site"],
        "priority": ["normal", "low", "normal"],
        "titles": ["Stock going negative at branch", "Stock transfers not arriving",
                   "Automatic reorder ordering things we have",
                   "Inventory wrong after transfer between sites",
                   "Negative stock for {item}"],
        "symptoms": [
            "Our branch keeps showing negative stock for things we transferred from the main site last week. "
            "The boxes are physically here on the shelf.",
            "We received a transfer of vaccines on the tablet this morning and the stock level at {site} "
            "didn't change.",
            "The automatic reorder has ordered {n} boxes of {item}, which we have plenty of, because the "
            "system thinks our branch has none.",
            "Stock transfers show as 'received' but the quantity never goes up at the receiving site. It "
            "does go down at the sending site.",
            "Our stocktake at the satellite surgery is miles off. Everything that came in by transfer is "
            "missing from the system.",
            "transfers accepted on the ipad dont add stock. on the desktop they do.",
        ],
        "details": [
            "We do most transfers from the tablet in the stock room.",
            "If I receive the transfer on a PC instead, it works.",
            "Wholesaler deliveries are fine, it's only transfers between sites.",
            "We have three sites sharing stock.",
        ],
        "staff_cause": [
            "When a transfer is received in the tablet app it's marked as received, but the stock isn't "
            "booked in at the receiving site. Receiving on the desktop does both, which is why those "
            "transfers are fine.",
            "This is a bug in the tablet app: receiving a transfer there only changes its status. The "
            "sending site is reduced correctly but nothing is added at your site, so it goes negative and "
            "triggers reorders.",
        ],
        "internal": ["Tablet receive-transfer doesn't post stock movement (STK-88). Reposted movements for "
                     "practice."],
        "fixes": [
            "I've reposted the missing stock movements for every transfer received on the tablet, so your "
            "levels should be right again; please cancel any automatic orders that went out because of it. "
            "Until app 2.14 is out, please receive transfers on a desktop.",
        ],
        "near": ["delivery-wrong-site", "pack-size-units"],
    },
    {
        "key": "portal-link-prescanned",
        "cause": "Client portal sign-in links are single-use, and workplace mail security (Microsoft Safe "
                 "Links, Mimecast) opens them before the owner does: owners get 'link expired' on their "
                 "first click",
        "tags": ["client-portal", "login", "email"],
        "priority": ["normal", "low"],
        "titles": ["Clients can't log in to the portal", "Portal login link says expired",
                   "Owners getting 'link expired' straight away",
                   "Client portal sign-in not working for some",
                   "Pet owner can't access portal"],
        "symptoms": [
            "A few clients say the login link we send for the portal has already expired when they click it, "
            "even straight away.",
            "{owner} has tried to log in to the pet portal five times. Every email link says it has expired "
            "or has already been used.",
            "Some owners get into the client portal fine, others get 'this link has expired' every time. The "
            "ones who can't seem to use work email addresses.",
            "Our client got the sign-in email instantly, clicked it within a minute and still got the "
            "expired page.",
            "The portal login link doesn't work for clients with company email addresses. Gmail and Hotmail "
            "work.",
            "client says link expired on portal login, she clicked it the second it arrived. she's on an nhs "
            "email",
        ],
        "details": [
            "She's trying to download the vaccination certificate for her dog.",
            "We've resent the link several times.",
            "It's happened with owners using their work email from the council and from a bank.",
        ],
        "errors": ["This sign-in link has expired or has already been used", "Link already used"],
        "staff_cause": [
            "Portal sign-in links can only be used once. Some workplaces' email security (Microsoft Safe "
            "Links, Mimecast and similar) opens every link in an email to check it, which uses up the link "
            "before the owner clicks it.",
            "It's the owner's email system rather than the link: their employer's mail scanner visits the "
            "link first, and because links are single-use it's expired by the time they click.",
        ],
        "internal": ["Safe Links consuming one-time portal links (PORTAL-61). Suggested code sign-in."],
        "fixes": [
            "The owner can choose 'Email me a code instead' on the portal sign-in page and type the 6-digit "
            "code from the email; codes aren't affected by link scanners. Or they can use a personal email "
            "address.",
            "We're changing the link so it opens a confirmation page first, which scanners won't complete. "
            "Until then the code option is the way round it.",
        ],
        "near": ["owner-email-typo", "duplicate-owner-portal"],
    },
    {
        "key": "import-date-swap",
        "cause": "The legacy data importer read the old system's dates as month/day whenever the day was 12 "
                 "or under: dates of birth, vaccination dates and reminder due dates came across swapped",
        "tags": ["data-import", "migration", "patients"],
        "priority": ["high", "normal"],
        "titles": ["Dates wrong after data import", "Pets' ages wrong since migration",
                   "Vaccination dates muddled after import", "Imported dates of birth are wrong",
                   "Day and month swapped on imported records"],
        "symptoms": [
            "Since our data was moved over from the old system some pets' dates of birth are wrong. A puppy "
            "we saw last week shows as eight months older than she is.",
            "Vaccination dates on imported records look muddled. {pet} had the {vaccine} on 3rd July but it "
            "shows as 7th March.",
            "Some of the reminders since the migration are due at strange times, months off from when the "
            "animal was actually vaccinated.",
            "The age on the patient banner is wrong for loads of animals. For others it's fine. I can't see "
            "a pattern.",
            "I think the import has swapped days and months. Dates like the 25th are fine but 5/6 came "
            "across as 6 May instead of 5 June.",
            "Since go-live owners keep telling us their pet's birthday is wrong on the reminder card and in "
            "the portal.",
            "dates wrong from the import - only dates before the 13th of the month. after 13 they are right",
        ],
        "details": [
            "We went live with you in {month}.",
            "Our old system was set to UK date format, I'm sure of it.",
            "Dates we've entered since go-live are all fine.",
            "There are thousands of records so we can't check them by hand.",
        ],
        "staff_cause": [
            "When we imported your data, dates where the day was 12 or under were read as month/day instead "
            "of day/month. Dates with a day of 13 or more couldn't be misread, which is why only some are "
            "wrong.",
            "The importer mixed up day and month for dates that could be read both ways (1 to 12). It's our "
            "mistake in the import, not a problem with your old system's export.",
        ],
        "internal": ["Import date parse ambiguity (MIG-39). Re-read date fields from original export as "
                     "dd/mm."],
        "fixes": [
            "We still have your original export, so we've re-read the affected dates (dates of birth, "
            "vaccination dates and reminder due dates) in the right format. Anything you've edited by hand "
            "since go-live was left alone.",
            "Reminders generated from the wrong dates have been recalculated too; please look over the "
            "reminder list before your next send.",
        ],
        "near": ["old-system-export-partial"],
        "near_clusters": ["quick-vacc-no-reset"],
    },
    {
        "key": "rota-repeat-home-site",
        "cause": "Copying the rota forward with 'Repeat weekly' creates shifts at each person's home site "
                 "instead of the site on the template: vets appear at the wrong branch and the real branch's "
                 "diary has no columns",
        "tags": ["rota", "staff", "diary"],
        "priority": ["normal", "high"],
        "titles": ["Rota put vets at the wrong branch", "Diary empty at branch after copying rota",
                   "Repeat weekly rota - wrong site", "No vet columns in the diary next week",
                   "Staff rostered at the wrong site"],
        "symptoms": [
            "I copied next month's rota from this week with Repeat weekly and now all our vets show at the "
            "main hospital, including the ones who work at the branch.",
            "The diary at {site} has no vet columns from next Monday, so reception can't book anything. The "
            "rota looked fine before I copied it forward.",
            "Our locum is at the branch on Tuesdays but after repeating the rota she's showing at head "
            "office every day.",
            "Online booking shows no availability at our second surgery for the next few weeks. I think it's "
            "something to do with the rota.",
            "Staff are rostered at the wrong site after I used the repeat option. I'd have to move {nn} "
            "shifts by hand.",
            "rota copy forward moved everyone to their home practice. how do i undo",
        ],
        "details": [
            "The original week is correct, only the copies are wrong.",
            "People who only ever work at one site are fine.",
            "We rota vets and nurses across three sites.",
        ],
        "staff_cause": [
            "Repeat weekly creates the new shifts at each person's home site rather than the site on the "
            "shift being copied. Anyone who works at a branch that isn't their home site ends up in the "
            "wrong place, and that branch's diary has no columns.",
            "It's a bug in the rota copy: it uses the staff member's home site instead of the shift's site, "
            "so cross-site shifts move to home sites.",
        ],
        "internal": ["Rota repeat uses home_site not shift.site (ROTA-45). Fixed copied shifts "
                     "for practice."],
        "fixes": [
            "I've moved the copied shifts back to the sites in your template, so the branch diaries have "
            "their columns again. Until the fix is out, copy the rota with 'Copy week' rather than 'Repeat "
            "weekly', which keeps the sites.",
        ],
        "near": ["rota-not-published-widget", "leave-hides-column"],
        "near_clusters": ["widget-ignores-blocks"],
    },
    {
        "key": "euthanasia-reminders",
        "cause": "Recording a death with the euthanasia consult template sets the patient's status banner "
                 "but not the 'deceased' flag the reminder job checks: reminders and marketing keep going to "
                 "owners of animals that have died",
        "tags": ["reminders", "patients", "deceased"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Reminder sent for a pet that has died", "Booster reminder for a deceased dog",
                   "Deceased patients still getting reminders",
                   "Very upset client - reminder after euthanasia",
                   "Reminders not stopping for PTS animals"],
        "symptoms": [
            "We had a very upset client on the phone this morning. We put her cat to sleep three weeks ago "
            "and she's just had a vaccination reminder for him.",
            "A client got a text telling her {pet} was due the {vaccine}. {pet} was euthanised here last "
            "month. This is awful for the family.",
            "Reminders are still going out for patients we've put to sleep. The record says Deceased at the "
            "top, so I don't understand why.",
            "Our nurse recorded a euthanasia with the template on {date} and the owner has since had a "
            "booster reminder and a dental offer email.",
            "How do reminders decide if a pet is deceased? We've had two complaints this week from bereaved "
            "owners.",
            "reminders going to dead pets, owners distraught. record shows deceased banner. please fix "
            "urgently",
            "After we PTS'd an old dog last week his owner got a 'we miss you, time for a check-up' email. "
            "She's left us a one star review. We need to know this won't happen again.",
        ],
        "details": [
            "We always use the euthanasia template so the cremation form gets filled in.",
            "When I tick Deceased on the patient details page by hand, reminders do stop.",
            "The patient banner shows 'Deceased' in red.",
            "We've apologised to the owners individually.",
        ],
        "staff_cause": [
            "The euthanasia consult template marks the patient as deceased on the banner, but the reminder "
            "job looks at a separate 'deceased' flag on the patient details, which the template doesn't set. "
            "So reminders and marketing carry on.",
            "I'm so sorry about this. It's a bug on our side: recording the death through the euthanasia "
            "template doesn't set the flag our reminder and marketing jobs check, so those animals are still "
            "treated as alive.",
        ],
        "internal": ["Euthanasia template sets status not is_deceased (PAT-112). Backfilled flag, cancelled "
                     "pending reminders.",
                     "PAT-112 again, complaint from bereaved owner. Practice wants a written explanation."],
        "fixes": [
            "We've set the deceased flag on every patient recorded through the euthanasia template and "
            "cancelled their pending reminders and marketing. The template will set the flag itself from the "
            "next release.",
            "Until the release, please also tick 'Deceased' on the patient details page after using the "
            "template; that stops reminders straight away.",
        ],
        "near": ["pet-died-elsewhere", "duplicate-patient-record"],
        "near_clusters": ["quick-vacc-no-reset"],
    },
    {
        "key": "takings-report-utc",
        "cause": "The daily takings report groups payments by UTC date: during British Summer Time payments "
                 "taken between midnight and 1am land on the previous day's cash-up",
        "tags": ["reports", "payments", "cash-up"],
        "priority": ["normal", "low"],
        "titles": ["Daily takings don't match terminal", "Cash up report wrong for night shift",
                   "End of day report missing payments", "Takings report vs Z report mismatch",
                   "Payments after midnight on wrong day"],
        "symptoms": [
            "Our daily takings report never matches the card terminal's end-of-day total. It's out by a "
            "different amount each day.",
            "Payments our night team takes just after midnight are showing on the previous day's takings "
            "report.",
            "The cash up for Saturday includes a payment I know was taken at 00:20 on Sunday.",
            "Our accountant says the takings report and the bank deposits don't reconcile on days with "
            "out-of-hours work.",
            "I run the end of day report at 8am and it doesn't agree with the terminal's Z report. Normal "
            "day shifts are fine, it's the overnight payments.",
            "takings for 24h site wrong every morning, some payments from after midnight appear in yesterday",
        ],
        "details": [
            "We do our own out-of-hours, so payments are taken through the night.",
            "The payments are right on the invoices themselves, with the right time.",
            "I don't think we noticed this last winter.",
        ],
        "staff_cause": [
            "The daily takings report groups payments by UTC date rather than UK time. During British Summer "
            "Time anything taken between midnight and 1am counts as the previous day.",
            "It's a time zone problem in the report: its day boundary is midnight UTC, which is 1am in "
            "summer, so your after-midnight payments fall into the day before.",
        ],
        "internal": ["Takings report groups by UTC date (REP-73). Only visible for practices open past "
                     "midnight."],
        "fixes": [
            "The fix is in the next release. Until then, the Payments list report lets you choose an exact "
            "time range (00:00 to 23:59 UK time) and will match your terminal.",
        ],
        "near": ["terminal-offline-wifi", "card-preauth-pending"],
        "near_clusters": ["terminal-timeout-double-charge"],
    },
]

NEAR_MISSES = [
    {"key": "sms-consent-off", "cause": "The client opted out of SMS (replied STOP), so no reminders are "
                                        "texted",
     "tags": ["reminders", "sms"], "titles": ["Client not getting reminder texts", "One owner gets no SMS"],
     "symptoms": ["{owner} says she's stopped getting our vaccination reminder texts. Other clients are "
                  "getting theirs fine as far as I know.",
                  "One client hasn't had a text from us since the summer. Her number is right, we rang her "
                  "on it."],
     "staff_cause": ["Her record has SMS reminders switched off: she replied STOP to one of our texts in "
                     "{month}, which records an opt-out. It's nothing to do with the SMS gateway."],
     "fixes": ["If she wants texts again she can reply START, or you can tick SMS in her contact preferences "
               "once she has asked you to."]},
    {"key": "sms-credit-ran-out", "cause": "The practice's prepaid SMS credit ran out",
     "tags": ["reminders", "sms", "billing"],
     "titles": ["No texts went out yesterday", "SMS reminders not sending"],
     "symptoms": ["None of our texts went out yesterday, reminders or appointment confirmations. Emails did "
                  "go."],
     "errors": ["Held: insufficient SMS credit"],
     "staff_cause": ["Your SMS credit reached zero on {weekday}, so every text after that was held. It isn't "
                     "a fault, the bundle ran out."],
     "fixes": ["Top up under Settings > Billing > SMS credit and held messages send within 15 minutes. You "
               "can also turn on auto top-up."]},
    {"key": "vaccine-given-elsewhere", "cause": "The booster was given at another practice and never "
                                                "recorded here",
     "tags": ["reminders", "vaccinations"], "titles": ["Overdue reminder but dog has been vaccinated"],
     "symptoms": ["An owner complained we sent an overdue reminder for her dog's booster, but she says he "
                  "had it done in the summer."],
     "staff_cause": ["He had it at another practice while they were on holiday, so there's no vaccination in "
                     "your records and the reminder is correct as far as the system knows."],
     "fixes": ["Record it as an external vaccination (Vaccinations > Add > Given elsewhere) with the date "
               "and the reminder will complete."]},
    {"key": "reminder-lead-time", "cause": "The reminder lead time is set to 6 weeks, so reminders go out "
                                           "early",
     "tags": ["reminders", "settings"], "titles": ["Reminders going out far too early"],
     "symptoms": ["Clients say our reminders come way too early. One got a booster reminder and the vaccine "
                  "isn't due till next month, she thought we'd made a mistake."],
     "staff_cause": ["Your reminder settings send the first reminder 6 weeks before the due date. The due "
                     "dates are right; it's just a long lead time."],
     "fixes": ["Change it under Settings > Reminders > Schedule; 2 to 3 weeks is common."]},
    {"key": "rota-not-published-widget", "cause": "The rota for those weeks is still a draft, so no online "
                                                  "slots exist",
     "tags": ["online-booking", "rota"], "titles": ["No online availability for future weeks",
                                                    "Online booking shows nothing after next week"],
     "symptoms": ["Our online booking shows no appointments at all for the week after next. Next week is "
                  "fine.",
                  "Clients say the booking page has no slots at {site} from the 1st onwards."],
     "staff_cause": ["The rota for those weeks is saved but still a draft. The widget only offers slots for "
                     "published shifts, so there's nothing to show until the rota is published."],
     "fixes": ["Open Rota, check the weeks and click Publish; slots appear online within a few minutes."]},
    {"key": "widget-cached-page", "cause": "The practice's website serves a cached copy of the booking page "
                                           "with the old widget embed code",
     "tags": ["online-booking", "website"], "titles": ["Booking page showing old appointment types"],
     "symptoms": ["Our booking page on the website still shows appointment types we removed weeks ago, and "
                  "the times look off compared with the diary."],
     "staff_cause": ["The widget itself is up to date; your website is serving a cached copy of the booking "
                     "page with the old embed code. The cache needs clearing on the website side."]},
    {"key": "online-duration-short", "cause": "The appointment type's online duration is shorter than its "
                                              "diary duration, so online bookings overlap the next slot",
     "tags": ["online-booking", "diary"],
     "titles": ["Online nurse clinics overlapping", "Online bookings overlap"],
     "symptoms": ["Online bookings for nurse clinics are overlapping the next appointment. The diary shows "
                  "them running into the one after, so we're double booked."],
     "staff_cause": ["The 'Nurse clinic' appointment type is 10 minutes online but 20 minutes in the diary, "
                     "so the widget thinks the following 10 minutes are free."],
     "fixes": ["Set both durations to match under Settings > Online booking > Appointment types."]},
    {"key": "cd-breakage-not-recorded", "cause": "A broken vial was thrown away without a wastage entry in "
                                                 "the register",
     "tags": ["controlled-drugs", "cd-register"], "titles": ["Ketamine register higher than the safe"],
     "symptoms": ["Our ketamine register is 10 ml higher than what is in the safe. There were no voids or "
                  "credits on that drug this month, we checked."],
     "staff_cause": ["The register shows a 10 ml vial booked in on {date} with no supply or wastage against "
                     "it since. If that's the vial one of your nurses dropped that week, it needs recording "
                     "as a breakage with a witness."],
     "fixes": ["Add a wastage entry with reason 'breakage', the date and the witness."]},
    {"key": "cd-units-mismatch", "cause": "The register unit is mg while supplies are entered in ml",
     "tags": ["controlled-drugs", "cd-register", "settings"], "titles": ["Methadone balance way off"],
     "symptoms": ["The methadone register balance is way off, like hundreds out. It seems to take off the "
                  "wrong amount every time we supply."],
     "staff_cause": ["The register for that product is kept in mg but supplies are being entered in ml, so "
                     "each 1 ml supply comes off as 1 mg. The product's register unit needs to match how you "
                     "dose it."]},
    {"key": "printer-driver-paper-size", "cause": "One PC's label printer driver is set to the wrong label "
                                                  "size",
     "tags": ["labels", "printing"], "titles": ["Labels cut off in one consult room"],
     "symptoms": ["Labels from consult room 2 come out cut off. The printer in the dispensary prints the "
                  "same label fine."],
     "staff_cause": ["Only the consult room 2 printer is affected and its Windows driver is set to 57 mm "
                     "labels. The template in Pawsitive Practice is correct."],
     "fixes": ["In Windows go to Printers, the label printer, Printing preferences, and set the stock to 89 "
               "x 36 mm."]},
    {"key": "lab-portal-requisition", "cause": "The test was ordered on the lab's own website, so the result "
                                               "has no requisition to match",
     "tags": ["lab", "results"], "titles": ["One lab result went to unmatched"],
     "symptoms": ["One blood result from {lab} went into the unmatched results inbox instead of onto the "
                  "patient. The others today attached fine."],
     "staff_cause": ["That test was ordered on the lab's website instead of in Pawsitive Practice, so the "
                     "result has no requisition ID for us to match. It's expected to land in Unmatched."],
     "fixes": ["Attach it from the inbox. Ordering tests from the patient's Lab tab avoids this."]},
    {"key": "analyser-offline", "cause": "The in-house analyser's link PC was restarted and the link service "
                                         "didn't start, so no results were sent",
     "tags": ["lab", "in-house", "results"], "titles": ["In-house blood results not appearing"],
     "symptoms": ["Our in-house blood machine results haven't appeared on any patient since yesterday "
                  "afternoon. Reference lab results are fine."],
     "staff_cause": ["The lab link service on the PC next to your analyser stopped at 15:12 yesterday, it "
                     "looks like the PC restarted for Windows updates. Nothing has been sent since."],
     "fixes": ["Start 'Pawsitive Lab Link' on that PC; the queued results will come through."]},
    {"key": "patient-species-wrong", "cause": "The patient was registered as a dog by mistake, so dog ranges "
                                              "apply",
     "tags": ["lab", "patients"], "titles": ["One cat's results flagged with dog ranges"],
     "symptoms": ["Results for one of our cats came back flagged all over the place, like dog ranges. Other "
                  "cats today are fine."],
     "staff_cause": ["The patient record for {pet} has the species set to Canine, so the results used dog "
                     "ranges. Correct the species and the flags update."]},
    {"key": "card-preauth-pending", "cause": "The client's bank shows a pending authorisation from a "
                                             "declined attempt, not a second charge",
     "tags": ["payments", "card-terminal"], "titles": ["Client says he was charged twice"],
     "symptoms": ["A client says he was charged twice for his cat's dental. We only have one payment on the "
                  "invoice and the terminal shows one sale."],
     "staff_cause": ["The second amount is a pending authorisation from an earlier attempt that was declined "
                     "at the terminal. Banks show these for a few days and then drop them; it was never "
                     "taken."]},
    {"key": "terminal-offline-wifi", "cause": "The card terminal lost its Wi-Fi connection",
     "tags": ["payments", "card-terminal"],
     "titles": ["Card terminal not working", "Can't take card payments"],
     "symptoms": ["Card payments aren't going through at all at reception. The terminal just says connecting "
                  "and the takings for today look short."],
     "errors": ["Terminal unreachable"],
     "staff_cause": ["The terminal has been offline since 10:40; it lost its Wi-Fi, probably when your "
                     "router restarted. Pawsitive can't reach it until it's back on the network."],
     "fixes": ["Restart the terminal and check it rejoins your Wi-Fi (Menu > Network)."]},
    {"key": "insurer-pre-existing", "cause": "The insurer declined the claim because the condition was "
                                             "pre-existing",
     "tags": ["insurance", "claims"], "titles": ["{insurer} rejected a claim"],
     "symptoms": ["{insurer} rejected a claim for a dog's skin condition. The client thinks we sent the "
                  "wrong paperwork or left out the history."],
     "staff_cause": ["The rejection letter says the condition is pre-existing, meaning it was noted before "
                     "the policy started. That's the insurer's decision on cover; the claim pack, history "
                     "included, was complete."]},
    {"key": "policy-number-wrong", "cause": "The policy number on the claim was mistyped",
     "tags": ["insurance", "claims"], "titles": ["Direct claim bounced straight back"],
     "symptoms": ["A direct claim we sent to {insurer} came back rejected within minutes. We've done lots of "
                  "claims this week and the others are fine."],
     "errors": ["Policy not found"],
     "staff_cause": ["The policy number on the claim has a digit missing, so the insurer couldn't find the "
                     "policy. Correct it on the owner's insurance details and resubmit."]},
    {"key": "price-rise-scheduled", "cause": "A colleague scheduled a price increase that took effect on the "
                                             "1st",
     "tags": ["invoicing", "price-list"], "titles": ["Consult fee gone up on its own?"],
     "symptoms": ["Our consult fee has gone up on invoices this week and I didn't change anything. Is this a "
                  "VAT thing?"],
     "staff_cause": ["One of your users scheduled a price change for the 1st: the consult went from £45 to "
                     "£48 including VAT. VAT is being calculated correctly."]},
    {"key": "health-plan-expired", "cause": "The client's health plan lapsed, so plan discounts no longer "
                                            "apply",
     "tags": ["invoicing", "health-plans"], "titles": ["Health plan discount not applied"],
     "symptoms": ["A client on our pet health plan was charged full price for {item} today. She's meant to "
                  "get 10% off and the invoice looks too high."],
     "staff_cause": ["Her plan lapsed on {date} after the direct debit failed twice, so the plan discount "
                     "isn't applied. Prices and VAT are fine."]},
    {"key": "delivery-wrong-site", "cause": "The wholesaler delivery was booked in at the main site instead "
                                            "of the branch",
     "tags": ["inventory", "stock"], "titles": ["Delivery not showing in branch stock"],
     "symptoms": ["Stock at our branch is showing zero for things we had delivered this week. The wholesaler "
                  "invoice says delivered."],
     "staff_cause": ["The delivery was booked in at the main site on {weekday}, so the stock was added "
                     "there. It's where it was booked in, not a transfer problem."],
     "fixes": ["Transfer the items to the branch, or reverse the booking-in and redo it at the right site."]},
    {"key": "pack-size-units", "cause": "The stocktake was entered in boxes for an item counted in single "
                                        "units",
     "tags": ["inventory", "stock"], "titles": ["Stock level ten times too high"],
     "symptoms": ["Stock for one wormer is showing 240 when we have 24 boxes. Reordering is all over the "
                  "place for that item."],
     "staff_cause": ["That item has a pack size of 10 and is counted in single tablets, but the stocktake "
                     "was entered in boxes. The system is converting as it's configured to."]},
    {"key": "owner-email-typo", "cause": "The owner's email address on the record is misspelled",
     "tags": ["client-portal", "email"], "titles": ["Client never receives portal email"],
     "symptoms": ["A client says she never gets the portal login email at all. Not in spam either."],
     "staff_cause": ["Her email on the client record is at 'hotmial.co.uk', so the emails bounce. Once the "
                     "address is corrected she'll get the link."]},
    {"key": "duplicate-owner-portal", "cause": "The owner has two client records and signs in to the one "
                                              "with no pets",
     "tags": ["client-portal", "clients"], "titles": ["Owner logs in but sees no pets"],
     "symptoms": ["A client can log in to the portal but sees no pets and no vaccination records at all."],
     "staff_cause": ["There are two client records with her email address; she's signing in to the empty one "
                     "that was created when she booked online. Merge the two and her pets will show."],
     "fixes": ["Clients > Merge, and keep the record with the history."]},
    {"key": "old-system-export-partial", "cause": "The old system's export only contained the last three "
                                                  "years of history",
     "tags": ["data-import", "migration"], "titles": ["History missing after import"],
     "symptoms": ["Some of our older patients are missing history from before 2023 since the import. The "
                  "rest of the record is there and the dates look fine."],
     "staff_cause": ["The export file from your old system only contained the last three years of clinical "
                     "history, which is that system's default export setting. Everything in the file was "
                     "imported."],
     "fixes": ["If you can get a full export from your old supplier, we can import the older history "
               "on top."]},
    {"key": "leave-hides-column", "cause": "A vet's approved leave hides their diary column for those days",
     "tags": ["rota", "diary"], "titles": ["Vet missing from diary next week"],
     "symptoms": ["One vet's column is missing from the diary for next Thursday and Friday. The rest of the "
                  "rota looks fine."],
     "staff_cause": ["She has approved leave for those two days, so her diary column is hidden. That's by "
                     "design."]},
    {"key": "pet-died-elsewhere", "cause": "The pet died elsewhere and the practice was never told",
     "tags": ["reminders", "patients"], "titles": ["Reminder sent for a cat that died in the summer"],
     "symptoms": ["An owner has complained that we sent a reminder for her cat who died in the summer. We "
                  "didn't know, he wasn't put to sleep here."],
     "staff_cause": ["There's no record of the death on the patient, so reminders carried on; the system had "
                     "no way of knowing. Mark the patient as deceased and pending reminders are cancelled."]},
    {"key": "duplicate-patient-record", "cause": "A duplicate record for the same animal was still active",
     "tags": ["reminders", "patients", "deceased"], "titles": ["Deceased dog still got a reminder"],
     "symptoms": ["We marked a dog as deceased properly, ticked the box and everything, but his owner still "
                  "got a booster reminder."],
     "staff_cause": ["The reminder came from a second record for the same dog, created when he was "
                     "registered at your branch. That one wasn't marked deceased. Merge the records or mark "
                     "the duplicate too."]},
]

SINGLETONS = [
    {"title": "Two microchip numbers for one dog", "tags": ["patients", "microchip"],
     "body": "{pet} had a second chip implanted because the first one stopped reading. Can we record both "
             "numbers?",
     "reply": "Yes: on the patient's Identification tab click Add microchip. You can mark the old one as "
              "'not reading' and both stay searchable."},
    {"title": "Animal Health Certificate template", "tags": ["documents", "question"],
     "body": "Do you have a template for Animal Health Certificates? We've got a lot of clients taking dogs "
             "to France this year.",
     "reply": "There's an AHC template under Documents > Templates > Travel. It fills in the microchip, "
              "rabies vaccination and owner details from the record."},
    {"title": "New vet's RCVS number on prescriptions", "tags": ["prescriptions", "staff"],
     "body": "We have a new vet starting on Monday. Where do I put her RCVS number so it prints on "
             "prescriptions?",
     "reply": "Add it on her user profile under Professional details; written prescriptions and labels pick "
              "it up automatically."},
    {"title": "Change logo on invoices", "tags": ["invoicing", "settings"],
     "body": "We've rebranded. How do I change the logo on our invoices and emails?",
     "reply": "Settings > Practice > Branding. Upload a PNG at least 600 pixels wide; invoices and emails "
              "use it from then on."},
    {"title": "Weights showing in lb", "tags": ["patients", "settings"],
     "body": "One of our PCs shows patient weights in pounds instead of kg. The others are fine.",
     "reply": "Units are a per-user setting: click your name > Preferences > Units and choose kg."},
    {"title": "Recording UELN for horses", "tags": ["equine", "patients"],
     "body": "Is there a proper field for the horse passport number / UELN? At the moment we type it in the "
             "notes."},
    {"title": "Whole herd TB test", "tags": ["farm", "question"],
     "body": "Can we record a TB test for a whole herd at once instead of animal by animal? We've got {nn} "
             "cattle to do on one farm this week."},
    {"title": "Add bank transfer as a payment method", "tags": ["payments", "settings"],
     "body": "Some of our farm clients pay by bank transfer. Can we add that as a payment type on invoices?",
     "reply": "Yes, under Settings > Payments > Payment methods click Add and choose 'Bank transfer'. It "
              "then appears on the Take payment screen."},
    {"title": "Xero export", "tags": ["integrations", "accounts"],
     "body": "Our accountant wants the sales to go into Xero. Is there an integration or do we export a "
             "file?",
     "reply": "There's a Xero connection under Settings > Integrations. It posts daily sales and payments "
              "summaries; your accountant chooses the accounts to map to."},
    {"title": "Booking two pets in one online appointment", "tags": ["online-booking", "question"],
     "body": "Clients with two cats want to book them in together online. Can the widget do that?",
     "reply": "Yes, turn on 'Allow multiple pets' for the appointment type under Settings > Online booking. "
              "The widget then lets owners tick more than one pet and doubles the length."},
    {"title": "Setting up a monthly health plan", "tags": ["health-plans", "how-to"],
     "body": "We want to launch a monthly pet health plan with vaccines, flea and worm treatment and 10% "
             "off. Where do we start?",
     "reply": "Health plans are under Settings > Health plans > New plan. You choose the included items and "
              "the discount, and the monthly direct debit is collected through our payments partner."},
    {"title": "Owner asked us to delete her data", "tags": ["gdpr", "clients"],
     "body": "A former client has asked us to delete everything we hold about her. Can we do that, and what "
             "about the clinical records we're meant to keep?"},
    {"title": "Bigger text on the consult screen", "tags": ["feature-request", "accessibility"],
     "body": "One of our vets struggles with the small text on the consult screen. Any way to make it "
             "bigger?"},
    {"title": "Remove a leaver's login", "tags": ["staff", "security"],
     "body": "A receptionist left on Friday. How do I stop her logging in without losing her name on the "
             "records she made?",
     "reply": "Deactivate her under Settings > Users. She can't sign in any more, and everything she "
              "recorded keeps her name."},
    {"title": "Turn an estimate into an invoice", "tags": ["invoicing", "how-to"],
     "body": "We give owners an estimate before surgery. Once the op is done can we turn the estimate into "
             "the invoice instead of typing it again?",
     "reply": "Open the estimate and click Convert to invoice. You can adjust quantities before you save."},
    {"title": "Cremation company integration", "tags": ["integrations", "feature-request"],
     "body": "Is there any link with pet crematoriums so we don't have to fill in their forms separately?"},
    {"title": "Subscription invoice shows wrong number of sites", "tags": ["billing"],
     "body": "Our Pawsitive invoice for {month} charges us for four sites. We closed one in the summer.",
     "reply": "The closed site was still active on your account. I've archived it and credited the "
              "difference on your next invoice."},
    {"title": "Christmas opening hours", "tags": ["online-booking", "settings"],
     "body": "We're closed 25th and 26th December and half day on Christmas Eve. How do I stop online "
             "bookings on those days?",
     "reply": "Add them under Settings > Sites > Closures. Online booking won't offer slots on closure days "
              "and the diary shows them greyed out."},
    {"title": "Sending records to a referral hospital", "tags": ["clinical-records", "how-to"],
     "body": "We're referring {pet} to a specialist. What's the quickest way to send the full history and "
             "the latest bloods?",
     "reply": "From the patient, choose Share > Referral pack. It bundles the clinical history, lab results "
              "and images into one PDF you can email from the same screen."},
    {"title": "Kennel board for hospitalised patients", "tags": ["hospitalisation", "question"],
     "body": "Can we print a kennel card for each inpatient with their meds and feeding times?",
     "reply": "Yes, in Hospital > Inpatients select the patient and choose Print kennel card."},
    {"title": "Owner wants to transfer dog to her daughter", "tags": ["clients", "patients"],
     "body": "An elderly client is moving into care and her daughter is taking the dog. How do we move the "
             "dog to the daughter's account with all the history?",
     "reply": "Open the patient and use Change owner. The history moves with the animal, and you can choose "
             "whether to keep the old owner as a secondary contact."},
]

ARTICLES = {
    "online-booking": {
        "title": "Online booking for clients",
        "intro": "The booking widget lets owners book appointments from your website or social media pages.",
        "sections": [
            ("Adding the booking widget to your website",
             "Copy the embed code from Settings > Online booking > Widget and paste it into your website. If "
             "you change appointment types or sites, the widget updates by itself; there's no need to paste "
             "the code again. If your website caches pages, clear its cache after first adding the code."),
            ("Which times are offered online",
             "The widget offers a time only if a vet or nurse has a published rota shift at that site, the "
             "time is inside the online hours of the appointment type, and nothing else is booked or blocked "
             "then. Draft rotas are never shown online. Each appointment type has its own online duration; "
             "keep it the same as the diary duration so online bookings don't overlap the next appointment."),
            ("Site time zones and booking times",
             "Every site has a time zone, set under Settings > Sites. Online bookings are converted from the "
             "time zone of the site, so an incorrect or empty time zone makes bookings land at a different "
             "time in the diary than the client chose, typically one hour out in summer. Check each new "
             "site's time zone when you add it."),
            ("Confirmations, cancellations and no-shows",
             "Clients get a confirmation by email and, if they've given a mobile number, by text. They can "
             "cancel from the link in the confirmation up to the cut-off you set. Appointments not checked "
             "in are marked as no-shows at the end of the day."),
        ],
    },
    "diary-and-rota": {
        "title": "The appointment diary and staff rota",
        "sections": [
            ("Rota shifts and diary columns",
             "Each published rota shift gives that person a column in the diary at the shift's site for "
             "those hours. If someone has no shift at a site, they have no column there and nothing can be "
             "booked with them."),
            ("Copying and repeating a rota",
             "Copy week duplicates one week's shifts into another week exactly as they are. Repeat weekly "
             "creates the same pattern for as many weeks as you choose. After copying, check the sites on "
             "the new shifts for staff who work at more than one branch, then publish."),
            ("Blocking out time in the diary",
             "Use blocks for lunch, surgery lists, meetings and home visits. A block can be one-off or "
             "repeat weekly. Blocked time can't be booked from the diary without an override, and is not "
             "offered online."),
            ("Leave and absence",
             "Approved leave removes the person's diary column for those days. Appointments already booked "
             "with them are listed so reception can move them."),
            ("Working across several sites",
             "Each staff member has a home site, used for reports and defaults. They can have shifts at any "
             "site; the diary follows the site of the shift, not the home site."),
        ],
    },
    "vaccination-reminders": {
        "title": "Vaccination and health reminders",
        "intro": "Reminders tell owners when vaccinations, worming, flea treatment and check-ups are due.",
        "sections": [
            ("How reminder due dates are set",
             "When a vaccination is recorded, the vaccine's protocol sets the next due date and creates a "
             "reminder. Reminders are sent on the schedule in Settings > Reminders > Schedule, for example "
             "three weeks before, and again if the vaccine is overdue."),
            ("Recording vaccinations so reminders complete",
             "A pending reminder is completed when a matching vaccination is recorded for the animal, "
             "whether from the consult, the invoice or Quick vaccinate. If the animal was vaccinated at "
             "another practice, add it as 'Given elsewhere' so the reminder completes and the next one is "
             "scheduled. If an owner gets an overdue reminder after a vaccination, check that the "
             "vaccination is on the record."),
            ("SMS and email delivery",
             "Reminders go by text, email or both, following the owner's contact preferences. Mobile numbers "
             "must be full UK or international numbers, starting 07 or +44. The Sent page shows each "
             "message's status; a Failed status means the message never left Pawsitive Practice, usually "
             "because of the number."),
            ("Contact preferences and opt-outs",
             "Owners can opt out of texts by replying STOP, or of emails with the unsubscribe link, and the "
             "preference is saved on the client record. Don't switch a preference back on unless the owner "
             "asks."),
            ("SMS credit",
             "Texts use prepaid credit. When credit runs out, messages are held until you top up under "
             "Settings > Billing > SMS credit. Auto top-up avoids held reminders."),
        ],
    },
    "patients-and-owners": {
        "title": "Patients and owners",
        "sections": [
            ("Recording a patient's death",
             "When an animal dies or is put to sleep, tick Deceased on the patient details page, or use the "
             "euthanasia consult template. A deceased patient's pending reminders and marketing are "
             "cancelled, and the record is kept for the clinical history. If an owner still receives a "
             "reminder for a deceased pet, check the Deceased tick on the patient details and look for a "
             "second record for the same animal."),
            ("Duplicate records and merging",
             "Duplicates happen when an owner books online with a new email or an animal is registered twice "
             "at different sites. Use Clients > Merge or Patients > Merge and keep the record with the "
             "history; appointments, invoices and reminders move to the kept record."),
            ("Changing ownership",
             "Use Change owner on the patient to move an animal and its history to another client. The "
             "previous owner can be kept as a secondary contact."),
            ("Species, breed and microchip details",
             "The species on the patient record decides the reference ranges used for lab results and the "
             "vaccine protocols offered. Microchips are recorded on the Identification tab; an animal can "
             "have more than one."),
        ],
    },
    "controlled-drugs-register": {
        "title": "The controlled drugs register",
        "intro": "Pawsitive Practice keeps an electronic register for Schedule 2 and 3 controlled drugs.",
        "sections": [
            ("How the register is kept",
             "Every receipt, supply and wastage of a controlled drug is a register entry with a running "
             "balance. Supplies are recorded when a controlled drug is dispensed on an invoice or used in a "
             "procedure. Entries can't be edited or deleted."),
            ("Weekly balance checks",
             "Run the balance check from CD register > Check. Count each product and enter the physical "
             "quantity; differences are flagged for investigation. The stock figure in inventory and the "
             "register balance should agree; if the stock agrees with the count but the register doesn't, "
             "look for supplies that were later cancelled."),
            ("Breakages, wastage and returns",
             "Record broken vials, expired stock and drawn-up doses that weren't used as wastage entries "
             "with a reason and a witness. Returns from clients are recorded as receipts for destruction."),
            ("Correcting the register",
             "Because entries are permanent, mistakes are put right with a correction entry (CD register > "
             "Add entry > Correction) giving the reason and a reference, such as an invoice number. If a "
             "controlled drug line is voided or credited on an invoice, add a correction entry so the "
             "register matches the stock."),
            ("Register units",
             "Each product has a register unit such as ml, mg or tablets. Enter supplies in the same unit, "
             "or the balance will be wrong by the difference between the units."),
        ],
    },
    "prescriptions-and-labels": {
        "title": "Prescriptions and dispensing labels",
        "sections": [
            ("Writing a prescription",
             "Prescribe from the consult by adding the medicine and dose. The prescribing vet's name and "
             "RCVS number are taken from their user profile."),
            ("Setting up label printers",
             "Choose the label size under Settings > Printing > Labels: 89 x 36 mm or 57 mm. The template "
             "must match the labels in your printers, or instructions and the practice address are cut off. "
             "The printer's Windows driver must be set to the same size; if only one printer cuts labels "
             "off, check its driver."),
            ("Written prescriptions for online pharmacies",
             "To give an owner a written prescription, choose Print prescription from the consult. You can "
             "also email it as a signed PDF."),
        ],
    },
    "lab-integrations": {
        "title": "Lab integrations",
        "sections": [
            ("Connecting a reference lab or in-house analyser",
             "Connect reference labs under Settings > Integrations > Labs with the account number the lab "
             "gives you. In-house analysers send results through the Pawsitive Lab Link program on the PC "
             "attached to the analyser, which must be running."),
            ("Requesting tests",
             "Request tests from the patient's Lab tab. Each request gets a requisition number that travels "
             "with the sample and links the result back to the patient. Tests ordered on the lab's own "
             "website have no requisition in Pawsitive Practice."),
            ("The Unmatched results inbox",
             "Results that can't be linked to a requisition go to Lab > Unmatched. Open each one, find the "
             "patient and click Attach. If many results from one site land here, contact support."),
            ("Reference ranges and flags",
             "Results are flagged high or low using the reference ranges for the patient's species, sent by "
             "the lab or set for the analyser. If a whole species is flagged oddly, the lab may be sending a "
             "species code we don't recognise; the lab's PDF report shows its own ranges."),
        ],
    },
    "payments-and-takings": {
        "title": "Payments, card terminals and daily takings",
        "sections": [
            ("Taking a card payment",
             "Click Take payment on the invoice and choose the terminal. The amount is sent to the terminal "
             "and the invoice is marked paid when the terminal approves it."),
            ("If the terminal times out or shows failed",
             "If the screen says a payment failed or timed out, check the terminal's last receipt before "
             "trying again. If the terminal approved it, use 'Mark as paid by card' with the terminal's "
             "reference rather than taking the payment a second time. If the terminal is offline, restart it "
             "and check its network connection."),
            ("Refunds",
             "Refund a card payment from the invoice's Payments tab; the refund goes back to the same card. "
             "A duplicate charge taken outside Pawsitive Practice must be refunded from the terminal itself. "
             "Banks may show declined attempts as pending for a few days."),
            ("Daily takings and cash-up",
             "The daily takings report totals payments by method for a day, for comparing with the "
             "terminal's end of day report and the cash drawer. For practices open overnight, the Payments "
             "list report with an exact time range is the most reliable comparison."),
        ],
    },
    "insurance-claims": {
        "title": "Insurance claims",
        "sections": [
            ("Submitting a direct claim",
             "From the invoice, choose Insurance > New claim, check the owner's insurer and policy number, "
             "and submit. The claim status updates as the insurer processes it."),
            ("What goes in the claim pack",
             "The claim pack includes the invoice, the clinical history and the claim form. History brought "
             "over from a previous system is kept as legacy notes; add them under Attachments if the insurer "
             "needs history from before you joined Pawsitive Practice."),
            ("Pended and rejected claims",
             "A pended claim needs more information; add it and click Resubmit. A rejected claim shows the "
             "insurer's reason, such as a policy number it can't find or a condition it doesn't cover."),
        ],
    },
    "price-list-and-invoices": {
        "title": "Price lists and invoices",
        "sections": [
            ("Prices and VAT",
             "Each item's price is stored either including or excluding VAT, set with the 'Price includes "
             "VAT' tick. Invoices add VAT only to prices that exclude it."),
            ("Importing a price list",
             "Update many prices at once from Price list > Import with our CSV template. After importing, "
             "open a few items and check the price and VAT setting, then create a test invoice before using "
             "the new prices with clients."),
            ("Scheduled price changes",
             "Price changes can be scheduled for a future date, for example the start of the year. Scheduled "
             "changes are listed under Price list > Scheduled, with who created them."),
            ("Health plan discounts",
             "Discounts for health plan members apply only while the plan is active. If a plan lapses after "
             "failed payments, the client pays full price until it's reinstated."),
        ],
    },
    "stock-and-inventory": {
        "title": "Stock and inventory",
        "sections": [
            ("Booking in deliveries",
             "Book in wholesaler deliveries from Stock > Deliveries at the site that received them. The "
             "stock is added at the site chosen when booking in."),
            ("Transfers between sites",
             "Create a transfer at the sending site; stock leaves it straight away. The receiving site "
             "accepts the transfer when the goods arrive, and the stock is added there. Check both sites' "
             "levels after a transfer if the numbers look wrong."),
            ("Pack sizes and units",
             "Items can be bought in packs and sold or dispensed in units. Stocktakes must be entered in the "
             "stock unit shown on the item, not in packs."),
            ("Automatic reordering",
             "When stock at a site falls below its minimum level, an order is suggested or sent to your "
             "wholesaler. Negative stock triggers an order too, so fix incorrect levels quickly."),
        ],
    },
    "client-portal": {
        "title": "The client portal",
        "sections": [
            ("Inviting owners to the portal",
             "Owners are invited by email from the client record, or automatically after their first online "
             "booking. They sign in with the email address on their record."),
            ("How owners sign in",
             "Owners sign in with a link sent to their email. Each link works once and for 30 minutes. Some "
             "workplace email systems open links to scan them, which uses up the link; owners can choose "
             "'Email me a code instead' and type the code."),
            ("What owners can see",
             "Owners see their pets, upcoming appointments, vaccination certificates, invoices and any lab "
             "results you choose to share. If an owner sees no pets, check for a second client record with "
             "the same email."),
        ],
    },
    "moving-from-another-system": {
        "title": "Moving your data from another system",
        "sections": [
            ("What we import",
             "We import clients, patients, vaccinations, reminders, clinical history, price lists and stock "
             "levels from your previous system's export. We can only import what is in the export file."),
            ("Dates and formats",
             "Tell us the date format your old system uses when you send the export. Day and month are "
             "easily swapped for dates up to the 12th, so check a few dates of birth and vaccinations after "
             "go-live."),
            ("Checking your data after go-live",
             "Before your first reminder run, look at a sample of patients, their ages and their due "
             "reminders, and check mobile numbers have a leading 0 or +44. Report anything odd to support "
             "quickly; we keep your original export for 90 days."),
            ("Legacy notes",
             "Clinical history from the old system is kept as legacy notes on each patient, read-only, shown "
             "under the History tab."),
        ],
    },
}

QUERIES = [
    {"q": "where do i get the code to put the appointment booking thing on our website",
     "answers": ["online-booking#1"], "kind": "task"},
    {"q": "people booking online end up an hour later in the diary than they picked",
     "answers": ["online-booking#3"], "kind": "symptom"},
    {"q": "why can clients book online during our lunch break", "answers": ["online-booking#2",
                                                                            "diary-and-rota#3"],
     "kind": "symptom"},
    {"q": "no slots available online next month", "answers": ["online-booking#2", "diary-and-rota#1"],
     "kind": "symptom"},
    {"q": "repeat this weeks shifts for the rest of the month", "answers": ["diary-and-rota#2"],
     "kind": "task"},
    {"q": "vet works at two branches which diary does she show in", "answers": ["diary-and-rota#5",
                                                                                "diary-and-rota#1"],
     "kind": "paraphrase"},
    {"q": "owner got an overdue booster text after we vaccinated him",
     "answers": ["vaccination-reminders#2"], "kind": "symptom"},
    {"q": "reminder texts failed status", "answers": ["vaccination-reminders#3"], "kind": "terse"},
    {"q": "how far ahead of the due date do reminders go out", "answers": ["vaccination-reminders#1"],
     "kind": "plain"},
    {"q": "client replied STOP can we turn her texts back on", "answers": ["vaccination-reminders#4"],
     "kind": "paraphrase"},
    {"q": "stop reminders for a pet that has been put to sleep", "answers": ["patients-and-owners#1"],
     "kind": "task"},
    {"q": "same cat registered twice at both our practices", "answers": ["patients-and-owners#2"],
     "kind": "paraphrase"},
    {"q": "CD register dosnt match whats in the safe", "answers": ["controlled-drugs-register#2",
                                                                   "controlled-drugs-register#4"],
     "kind": "typo"},
    {"q": "we cancelled a methadone line on an invoice, how do we fix the register",
     "answers": ["controlled-drugs-register#4"], "kind": "symptom"},
    {"q": "nurse dropped a vial of ketamine",
     "answers": ["controlled-drugs-register#3"], "kind": "paraphrase"},
    {"q": "register takes off mg when we give ml",
     "answers": ["controlled-drugs-register#5"], "kind": "symptom"},
    {"q": "medicine labels chopped off at the bottom", "answers": ["prescriptions-and-labels#2"],
     "kind": "symptom"},
    {"q": "owner wants a written script to buy flea treatment online",
     "answers": ["prescriptions-and-labels#3"], "kind": "paraphrase"},
    {"q": "blood results not going onto the animal, stuck in a list", "answers": ["lab-integrations#3"],
     "kind": "symptom"},
    {"q": "in house analyser results not coming through",
     "answers": ["lab-integrations#1"], "kind": "symptom"},
    {"q": "all the cat bloods flagged high", "answers": ["lab-integrations#4"], "kind": "symptom"},
    {"q": "terminal said timed out but client was charged, do i take it again?",
     "answers": ["payments-and-takings#2"], "kind": "symptom"},
    {"q": "refund owner charged twice", "answers": ["payments-and-takings#3"], "kind": "terse"},
    {"q": "end of day report doesnt match card machine",
     "answers": ["payments-and-takings#4"], "kind": "typo"},
    {"q": "insurer wants history from before we switched to you", "answers": ["insurance-claims#2"],
     "kind": "paraphrase"},
    {"q": "claim pended what now", "answers": ["insurance-claims#3"], "kind": "terse"},
    {"q": "vat charged on top of prices that already include vat", "answers": ["price-list-and-invoices#1",
                                                                               "price-list-and-invoices#2"],
     "kind": "symptom"},
    {"q": "upload new prices from spreadsheet", "answers": ["price-list-and-invoices#2"], "kind": "task"},
    {"q": "moving stock from main practice to branch", "answers": ["stock-and-inventory#2"], "kind": "task"},
    {"q": "why did it reorder stuff we've got loads of", "answers": ["stock-and-inventory#4",
                                                                     "stock-and-inventory#2"],
     "kind": "symptom"},
    {"q": "owner says login link expired as soon as she clicked it", "answers": ["client-portal#2"],
     "kind": "symptom"},
    {"q": "client logs into the app but her pets aren't there", "answers": ["client-portal#3",
                                                                            "patients-and-owners#2"],
     "kind": "symptom"},
    {"q": "after switching from our old software the birthdays are wrong",
     "answers": ["moving-from-another-system#2"], "kind": "symptom"},
    {"q": "Hi, we went live with you last month and our first reminder run is next week. The old system was "
          "a mess and I'm worried about sending reminders to the wrong people or to numbers that don't work. "
          "Is there anything we should check before we press send?",
     "answers": ["moving-from-another-system#3", "vaccination-reminders#3"], "kind": "long"},
    {"q": "We're a 24 hour hospital and the night team take payments at all hours. Every morning the "
          "practice manager does the cash up against the card machine's report and it's never quite the "
          "same, usually something from just after midnight. Which report should we actually be using to "
          "reconcile?",
     "answers": ["payments-and-takings#4"], "kind": "long"},
]
