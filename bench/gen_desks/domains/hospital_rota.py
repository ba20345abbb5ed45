"""Rotawell: staff rostering and shift scheduling for hospitals and care trusts (held-out desk).

Writers are ward managers, rota coordinators, matrons, bank office and workforce teams, medical staffing, and
nurses, HCAs and junior doctors themselves: busy, often on a phone between jobs, some terse, some long and fed
up, a good share trained abroad and writing in their second language, full of ward shorthand (HCA, RMN, F1,
SHO, long day, nights, bank, agency, AL). Areas: building and publishing rotas, shift patterns and roll
forward, shift swaps, bank and agency shifts and the cascade, annual and study leave, timesheets and the
payroll export, clock-in terminals, the staff app and its notifications, Microsoft sign-in, e-learning
compliance blocks, safe-staffing levels and alerts, medical on-call rotas.
"""

PRODUCT = "Rotawell"

STYLE = {
    "lengths": {"oneline": 0.22, "short": 0.36, "medium": 0.28, "long": 0.14},
    "greeting": 0.55,
    "signoff": 0.55,
    "context": (1, 2),
    "rambles": (0, 1),
    "typo_rate": 0.02,
    "careless": 0.5,
    "lowercase": 0.12,
    "no_apostrophes": 0.25,
    "nonnative": 0.6,
    "hours": (6, 23),
}

STAFF = [("aisha", "Aisha Bello"), ("rob", "Rob Kinsella"), ("marta", "Marta Kowalczyk"), ("dev", "Dev Sharma"),
         ("hannah", "Hannah Lowe")]

CUSTOMERS = [
    {"name": "St Aldhelm's Hospitals NHS Foundation Trust", "plan": "Enterprise", "seats": 4200, "region": "UK",
     "contact": "Claire Whitfield", "sso": "Microsoft", "writers": ["Joy Mensah", "Rhys Llewellyn"],
     "notes": "Acute trust on three sites. Claire is the e-roster lead; Joy manages the acute medical unit and "
              "Rhys runs the in-house bank office. Live on Rotawell since 2022, about 140 clock-in terminals, "
              "monthly payroll export to ESR."},
    {"name": "Pennine Moor Mental Health NHS Trust", "plan": "Enterprise", "seats": 2600, "region": "UK",
     "contact": "Gareth Holt", "sso": "Microsoft", "writers": ["Bernadette Quinn", "Tendai Moyo"],
     "notes": "Inpatient mental health wards and community teams; mostly RMNs and HCAs on long days and nights. "
              "Gareth is workforce systems manager, Bernadette a matron, Tendai a charge nurse. Consultant "
              "psychiatrists on a 1 in 8 on-call."},
    {"name": "Riverside Independent Hospital", "plan": "Growth", "seats": 380, "region": "UK",
     "contact": "Maricel Santos", "sso": "Microsoft", "writers": ["Jomar Reyes"], "voice": "tl",
     "notes": "Private surgical hospital with its own small bank. Many of the nursing team trained in the "
              "Philippines. Maricel coordinates the theatres and ward rotas; Jomar is a senior staff nurse."},
    {"name": "Northmoor Community Care Trust", "plan": "Enterprise", "seats": 1900, "region": "UK",
     "contact": "Agata Lis", "sso": "Microsoft", "writers": ["Pawel Zielinski"], "voice": "pl",
     "notes": "Community nursing teams and two intermediate care units. Agata is a rota coordinator, Pawel "
              "works in the bank office. Most staff use their own Android phones."},
    {"name": "Strathcarron Health Board", "plan": "Enterprise", "seats": 5100, "region": "UK",
     "contact": "Morag Sinclair", "sso": "Microsoft", "writers": ["Calum Fraser"],
     "notes": "Scottish health board, two district general hospitals and several rural community hospitals. "
              "Morag is the eRostering project lead; Calum handles the payroll interface. Weekly bank pay."},
    {"name": "Harbourside Children's Hospital", "plan": "Enterprise", "seats": 1400, "region": "UK",
     "contact": "Priya Nair", "sso": "Microsoft", "writers": ["Ben Castell"],
     "notes": "Specialist children's hospital. Priya manages PICU; Ben is medical staffing manager and runs "
              "the junior doctor rotas (F1 to ST8) and study leave. Big intake at the August changeover."},
    {"name": "Kingsmere Community Hospital", "plan": "Starter", "seats": 160, "region": "UK",
     "contact": "Anju Thomas", "sso": None, "writers": ["Shiny Joseph"], "voice": "ml",
     "notes": "Small community hospital, two wards and a minor injuries unit. Password sign-in, no SSO. "
              "Anju is ward sister; four clock-in terminals installed in 2025."},
    {"name": "Wyvern Valley University Hospitals NHS Trust", "plan": "Enterprise", "seats": 6800,
     "region": "UK", "contact": "Steve Barraclough", "sso": "Microsoft",
     "writers": ["Nadia Rahman", "Oluwaseun Adebayo"],
     "notes": "Large teaching trust. Steve is head of temporary staffing and watches agency spend closely; "
              "Nadia works in the bank office; Oluwaseun manages AMU. Bank to agency cascade runs in "
              "Rotawell with three agency tiers."},
    {"name": "St Brigid's Hospice", "plan": "Starter", "seats": 95, "region": "IE", "contact": "Siobhan Daly",
     "sso": None,
     "notes": "Hospice in Galway with an inpatient unit and a nurse on-call rota for the community team. "
              "Siobhan is director of nursing and does the rota herself."},
    {"name": "Mercy Bay Private Hospital", "plan": "Growth", "seats": 520, "region": "IE",
     "contact": "Ciara Moran", "sso": "Microsoft", "writers": ["Lucia Fernandez"],
     "notes": "Private hospital in Dublin: theatres, day ward and two inpatient wards. Uses agency nurses "
              "heavily in summer. Lucia is a clinical nurse manager."},
    {"name": "Elmbridge Orthopaedic Centre", "plan": "Starter", "seats": 210, "region": "UK",
     "contact": "Tom Haworth", "sso": None,
     "notes": "Elective orthopaedic unit, mostly day cases, one inpatient ward with nights. Tom is theatre "
              "manager and does most of the admin."},
    {"name": "Calderbrook Hospitals NHS Trust", "plan": "Enterprise", "seats": 3900, "region": "UK",
     "contact": "Dawn Pickering", "sso": "Microsoft", "writers": ["Kwame Asante", "Rosie Tait"],
     "notes": "Moved from paper rotas to Rotawell in 2024. Dawn leads the workforce team, Kwame is the payroll "
              "liaison, Rosie is matron for surgery. Annual leave recorded in hours."},
    {"name": "Ashworth Lodge Care Group", "plan": "Growth", "seats": 640, "region": "UK",
     "contact": "Florin Popa", "sso": None, "writers": ["Ioana Marin"], "voice": "ro",
     "notes": "Eight nursing homes; nurses and carers on 12-hour days and nights. Florin is operations "
              "manager, Ioana a home manager. Many staff are from Romania and the Philippines."},
    {"name": "Fernhill Rehabilitation Hospital", "plan": "Growth", "seats": 300, "region": "UK",
     "contact": "Imran Qureshi", "sso": "Microsoft", "writers": ["Sunita Verma"],
     "notes": "Neuro-rehab hospital; therapists are rostered alongside nurses. Imran is clinical director, "
              "Sunita the rota coordinator. Safe staffing reports go to the board monthly."},
]

SLOTS = {
    "ward": ["Ward 7", "AMU", "Ward 22", "ITU", "Maple Ward", "Elderly Care 3", "Ward 12", "Kestrel Ward",
             "the stroke unit", "Birch Ward", "SAU", "Ward 4B"],
    "nurse": ["Grace Adeyemi", "Liam Fenwick", "Rosa Mendes", "Tariq Hussain", "Mei Lin Chan", "Bethany Cole",
              "Jaspreet Kaur", "Emeka Obi", "Sarah-Jane Milner", "Ana Cruz", "Reji Varghese", "Kasia Duda"],
    "doctor": ["Dr Patel", "Dr Okonkwo", "Dr Hughes", "Dr Farah", "Dr McKenna", "Dr Lindqvist", "Dr Bose"],
    "month": ["August", "September", "October"],
    "site": ["the main site", "the General", "the community hospital", "our second site", "the Infirmary"],
    "terminal": ["the terminal by the main entrance", "the terminal outside theatres", "the staff room terminal",
                 "the terminal on level 3", "the terminal by the lifts"],
    "phone": ["Samsung", "Pixel", "Motorola", "Xiaomi", "Samsung A14"],
    "course": ["Basic Life Support", "Fire Safety", "Information Governance", "Moving and Handling",
               "Infection Prevention and Control", "Conflict Resolution"],
    "agency": ["Brightcare Staffing", "NurseLink", "Meridian Medical Recruitment", "ProCare Nursing"],
    "role": ["HCA", "staff nurse", "RMN", "nursing associate", "ODP", "band 6"],
    "shift": ["long day", "night", "early", "late", "twilight"],
}

GREETINGS = ["Hi,", "Hello,", "Hi there,", "Morning,", "Hello Rotawell team,", "Hi {staff},", "Dear Support,",
             "Evening,", "Hiya,"]
SIGNOFFS = ["Thanks,\n{first}", "Kind regards,\n{name}\n{company}", "Many thanks, {first}", "{first}",
            "Regards,\n{name}\n{ward}, {company}", "Thanks\n{name}\nE-Roster Team, {company}",
            "Sent from my iPhone", "Cheers, {first}"]
VOICE_GREETINGS = {
    "tl": ["Good day po,", "Hello ma'am/sir,", "Good morning po,", "Hi Sir/Madam,"],
    "pl": ["Hello,", "Good morning,", "Dear Sir/Madam,", "Hello Support,"],
    "ml": ["Respected Sir/Madam,", "Dear team,", "Good morning sir,", "Hello madam,"],
    "ro": ["Hello,", "Good day,", "Dear support team,"],
}
VOICE_SIGNOFFS = {
    "tl": ["Thank you po,\n{first}", "Thank you and God bless,\n{name}", "Regards,\n{name}"],
    "pl": ["Best regards,\n{name}", "Thank you,\n{first}", "Regards\n{name}"],
    "ml": ["Thanks and regards,\n{name}", "Kindly do the needful.\n{name}", "Thanking you,\n{first}"],
    "ro": ["Thank you,\n{name}", "Kind regards,\n{first}", "Thank you very much,\n{name}"],
}
CONTEXT = [
    "I'm writing this on my break so sorry if it's short.",
    "We're on OPEL 3 this week so the last thing we need is the rota playing up.",
    "For context we have about {nn} staff on {ward}, a mix of RNs and HCAs.",
    "I'm covering for our e-roster lead who is off sick.",
    "I only got given the rota job two months ago so apologies if this is something obvious.",
    "Our matron has asked me to get an answer today.",
    "We went live with Rotawell on {ward} only recently.",
    "I've been on since 07:00 and I'm trying to sort this before handover.",
    "The bank office has had the phone ringing all morning about it.",
    "This is at {site}, I don't know if the other sites have the same thing.",
    "Our CQC inspection is coming up so I really need the reports to be right.",
    "We have a lot of new international nurses starting this month.",
]
RAMBLES = [
    "Honestly it's been a nightmare week. We've had two nurses off sick, one on a phased return and a ward "
    "full of patients waiting for social care packages, so every gap on the rota is me on the phone begging "
    "people to come in. I don't have time to check the system is doing its job as well.",
    "I know you probably get a lot of these but I've tried to explain it to our IT service desk twice and they "
    "just keep closing the call saying it's a Rotawell problem, so here I am. Nobody on the ward knows who to "
    "ask and I've ended up being the person everyone comes to.",
    "We were told when we went live that this would save us hours every month and for the most part it has, "
    "but when something goes wrong nobody here knows how it works under the hood, and the staff lose trust in "
    "it very quickly. Then they go back to writing swaps on the whiteboard in the office.",
    "I'm a nurse, not an IT person. I've been qualified for twenty years and now I spend half my day "
    "looking at screens, so please explain it in plain English if you can.",
]
TRIED = [
    "I've logged out and back in and tried on the ward PC as well as my phone.",
    "I've checked the person's profile and nothing has changed on our side as far as I can see.",
    "I asked our e-roster team and they've not seen it before either.",
    "I looked in the help centre but couldn't find anything that matched.",
    "Our IT service desk say it's nothing to do with them.",
    "I tried deleting the app and installing it again.",
    "I've refreshed the roster and republished, same thing.",
]
ASKS = ["Can you look into it please?", "Please can someone help, it's urgent.", "Is this something on your side?",
        "What do I need to do to fix it?", "Can someone ring me on the ward please?",
        "Let me know if you need anything else.", "Is there a workaround for now?",
        "Please advise asap, staff are getting upset."]
ERROR_INTROS = ["It says: \"{error}\"", "Getting this message: {error}", "Error on screen: \"{error}\"",
                "The log says \"{error}\".", "Screenshot attached, it says \"{error}\""]
FOLLOWUP_WAIT = ["Hi, any update? Staff are still asking me.", "Chasing this please.",
                 "Still happening today.", "Is anyone looking at this? Staff keep asking me about it.",
                 "Any news? I have to give the staff an answer."]
FOLLOWUP_THANKS = ["That's worked, thank you!", "Brilliant, thanks {staff}.", "Thanks, all looks right now.",
                   "Thank you so much, I'll let the ward know.", "Great, sorted. Thanks for the quick reply.",
                   "ok thanks"]
REPLY_INFO = ["Screenshot attached.", "It's {ward} at {site}.", "The staff member is {nurse}, staff number {num}.",
              "It was the {shift} shift on {date}.", "Yes happy for you to log in and have a look.",
              "I've attached the export file."]

STAFF_OPENERS = ["Hi {first},", "Hello {first}, thanks for getting in touch.", "Hi {first}, thanks for the detail.",
                 "Hi {first}, sorry for the trouble with this.", "Hi {first}, thanks for your patience."]
STAFF_SIGNOFFS = ["Best,\n{staff}", "Kind regards,\n{staff} | Rotawell Support", "Thanks,\n{staff}", ""]
STAFF_ASKS = [
    "Could you tell me which ward and roster period this is, and the name or staff number of one person "
    "affected?",
    "Could you send a screenshot of what you're seeing (web or app), with patient details cropped out?",
    "Are you happy for us to access your Rotawell account to look at the roster?",
    "Is this affecting everyone, or only some staff or wards?",
    "Is this on the app, the website, or both? If the app, which version and which phone?",
]
STAFF_HOLDING = [
    "Thanks for flagging this. I've passed it to our engineering team and I'll update you as soon as I hear "
    "back.",
    "We're looking into this now and will come back to you today.",
    "I can see the same thing on your account. I've escalated it and will keep you posted.",
]
INTERNAL_GENERIC = ["Asked for ward, roster period and an example staff member.", "Customer granted support access.",
                    "Checked unit settings, nothing obvious. Waiting on screenshots.",
                    "Called the ward, left a message with the nurse in charge."]
TAG_EXTRAS = ["bug", "question", "escalated", "patient-safety", "how-to", "mobile"]
VAGUE_TITLES = ["Rota problem", "URGENT", "Problem with Rotawell", "Help please", "Query", "e-roster issue",
                "Not working"]

CLUSTERS = [
    {
        "key": "period-end-night-split",
        "cause": "Night shifts that cross midnight at the end of a pay period are split at midnight, and the hours "
                 "after midnight are dropped from both periods' payroll exports",
        "tags": ["timesheets", "payroll-export", "nights"],
        "priority": ["high", "normal", "high"],
        "titles": ["Night staff underpaid for last night of month", "Hours missing from payroll export",
                   "Night shift only paid up to midnight", "Payslip short for nights",
                   "Export doesn't match timesheets for nights"],
        "symptoms": [
            "Several of our night nurses have been underpaid for the last night of the month. The payslip only "
            "has about 4 hours for that shift instead of the full 12.",
            "Bank office here. We've had {n} bank workers ringing to say their last night of {month} is missing "
            "hours. The timesheet in Rotawell looks complete to me.",
            "The payroll export total for nights on {ward} is short compared with the rostered hours. When I dig "
            "in, the missing hours are all after midnight on the last night of the pay period.",
            "One of our HCAs worked 20:00 to 08:00 on the last night of {month} and was only paid up to "
            "midnight. The rest hasn't turned up in the following month either, we checked.",
            "Payroll keep sending back queries about night hours that don't match. It's always the shift that "
            "starts on the final day of the period.",
            "the night enhancement after midnight is missing for everyone who worked the night going into the "
            "new month. its like the shift stopped at 00:00",
            "Our bank staff are paid weekly and the Sunday night going into Monday gets cut off at midnight in "
            "the export file. Every week, every night worker.",
        ],
        "details": [
            "Day shifts and long days are fine.",
            "The clock in and clock out times on the timesheet are correct.",
            "I checked the next period's export and the hours aren't there either.",
            "It's every ward, not just one.",
            "Payroll have been paying the difference by hand as a one-off, which they are not happy about.",
        ],
        "staff_cause": [
            "This is on our side. When a night shift crosses midnight at the end of a pay period, we split it so "
            "each part goes in the right period, but the part after midnight isn't being picked up by the next "
            "period's export. So those hours are dropped altogether.",
            "The hours are lost in the split at the pay period boundary: the export puts the pre-midnight part "
            "in the closing period and is meant to carry the rest forward, and that carry-forward isn't "
            "happening.",
            "It's a bug in the payroll export for shifts that straddle the period end. The timesheet is right; "
            "the export drops everything after 00:00 on the first day of the new period.",
        ],
        "internal": ["Period-boundary split: post-midnight segment never queued for next export. EXP-402. "
                     "Supplementary export generated for the customer.",
                     "Another night split at period end, EXP-402. Listed the affected shifts for them."],
        "fixes": [
            "We've fixed the export and generated a supplementary file with the missing post-midnight hours for "
            "your affected shifts. Payroll can load it with the next run.",
            "If payroll has already paid some staff the difference by hand, send me their names and we'll leave "
            "them out of the supplementary export so nobody is paid twice.",
        ],
        "near": ["night-break-deducted", "missed-clock-out"],
        "near_clusters": ["terminal-offline-timestamp"],
    },
    {
        "key": "lms-date-format",
        "cause": "Since the LMS connector update, training completion dates in the e-learning feed are read "
                 "month-first: courses renewed on the 13th or later of a month are rejected, so the old expired "
                 "record stays and staff are flagged non-compliant and blocked from bank shifts",
        "tags": ["compliance", "e-learning", "bank"],
        "priority": ["high", "normal", "high"],
        "titles": ["Staff blocked from bank shifts - training showing expired", "Compliance flags wrong",
                   "Mandatory training not updating", "Can't book bank, says BLS out of date",
                   "Red compliance flags for staff who are in date"],
        "symptoms": [
            "I can't book any bank shifts in the app, it says my {course} is expired. I did it again on the 18th "
            "and I have the certificate.",
            "Loads of my staff have gone red in the compliance column on the rota since last week. I checked "
            "three of them on the e-learning site and they're all in date.",
            "The bank office can't fill shifts because the system won't let us book people who are showing "
            "non-compliant. Ward managers are telling us the training was done.",
            "Rotawell says {nurse}'s {course} expired back in the spring. She redid it last month and the LMS "
            "shows it complete, but it never came across.",
            "Our compliance report this week shows a big jump in non-compliant staff, from about 6% to over 20%, "
            "and nothing changed on the training side.",
            "Some training updates from the e-learning feed are coming through and some aren't. People who did "
            "the course early in the month seem fine, it's the others.",
            "When I try to book her onto the shift anyway, it wants a matron's override every single time. We "
            "never needed that for people who are up to date.",
        ],
        "details": [
            "The e-learning system itself shows the course as completed.",
            "It's across different courses, not only one.",
            "We haven't changed anything with the feed on our side.",
            "The import log has a lot of warnings but I don't know what they mean.",
            "Staff are getting really frustrated, they rely on the bank shifts.",
        ],
        "errors": ["Import warning: invalid completion date '18/09/2026' (row {num})",
                   "Booking blocked: mandatory training expired ({course})"],
        "staff_cause": [
            "Since our update to the LMS connector, it reads the completion dates in your training feed month "
            "first. A course completed on the 18th comes across as month 18, which is rejected, so the old, "
            "expired record stays in place and the person is flagged non-compliant.",
            "The training feed isn't wrong, we're reading it wrong: the connector takes 18/09 as the 9th day of "
            "the 18th month and drops the row. Anyone who renewed a course after the 12th of a month still "
            "shows their previous, expired date.",
            "It's the date format in our e-learning import. Dates with a day above 12 fail, so those completions "
            "never update the compliance record, and the booking rules then block the person.",
        ],
        "internal": ["LMS connector v3 parses DD/MM as MM/DD. INT-233. Re-import after fix restores records.",
                     "Compliance flags again: rejected rows with day > 12 in the import log. Linked INT-233."],
        "fixes": [
            "We've corrected the date format on your connector and re-imported the last 60 days of the feed. "
            "The flags should clear within the hour; ask staff to refresh the app if they still see the block.",
            "Until the fix reaches you, a ward manager or the bank office can enter the completion date on the "
            "person's Compliance tab, which lifts the block straight away.",
        ],
        "near": ["training-wrong-level", "lms-file-not-sent"],
    },
    {
        "key": "swap-reverted-on-republish",
        "cause": "Republishing a roster period starts from the last published version: shift swaps approved in "
                 "the app since the previous publish are silently reverted",
        "tags": ["shift-swaps", "rota", "publishing"],
        "priority": ["high", "normal", "high"],
        "titles": ["Approved shift swap disappeared", "Swap reverted after rota update",
                   "Two nurses turned up for the same shift", "Staff back on original shifts after swap",
                   "Swaps not sticking"],
        "symptoms": [
            "Two of my nurses swapped a long day last week, I approved it in the app, and now the rota shows them "
            "back on their original shifts.",
            "Nobody turned up on {ward} on {weekday} night. The nurse thought she'd swapped the shift to her "
            "colleague, and the colleague's app showed she wasn't working.",
            "I approved a swap between {nurse} and another HCA on {date} and it was there. Today the swap is "
            "gone and there's no record of anyone undoing it.",
            "Staff keep telling me their swaps 'undo themselves'. It seems to happen after I make changes to the "
            "rota and publish it again.",
            "My app said I swapped my nights to next week, then I got a notification saying I'm on the original "
            "nights again. I didn't cancel anything.",
            "Two staff came in for the same early this morning, both with the shift in their app. One of them "
            "had to go home.",
            "The swap history says Approved but the roster doesn't match. The ward shows over-staffed on one day "
            "and short on another.",
        ],
        "details": [
            "I republished the rota after adding the new starters, if that matters.",
            "The swap was done through the app, not on the computer.",
            "It's happened to at least {n} swaps this month.",
            "The audit shows my name on the publish but I didn't touch those shifts.",
        ],
        "staff_cause": [
            "When a roster period is published again, it restores the assignments from the previous publish, "
            "which overwrites swaps approved in the app in between. That's a bug on our side, not anything you "
            "did.",
            "The swaps were undone by the republish: publishing takes the last published version as its "
            "starting point and doesn't include app-approved swaps made since, so those staff go back to their "
            "original shifts.",
            "It's the republish, not the staff. Any swap approved on mobile after the roster was last published "
            "is lost when the roster is published again.",
        ],
        "internal": ["Republish overwrites post-publish mobile swaps (ROS-1290). Restored swaps from the swap log "
                     "for this roster.",
                     "Swap reverted after republish, same ROS-1290."],
        "fixes": [
            "I've restored the approved swaps from the swap log on your affected rosters; please check the week "
            "of {date} looks right. Until the fix ships, approve swaps on the web roster rather than the app, or "
            "avoid republishing a period that has swaps in it.",
            "The fix is deployed: republishing now keeps swaps approved since the last publish. The swaps that "
            "were lost have been put back.",
        ],
        "near": ["swap-awaiting-other-ward", "edited-unpublished-draft"],
        "near_clusters": ["app-week-start-region"],
    },
    {
        "key": "android-push-token",
        "cause": "After the Android app 6.1 update the phone's push notification registration isn't renewed: "
                 "Android users stop getting bank shift offers and rota alerts until they sign out and back in",
        "tags": ["mobile-app", "notifications", "android"],
        "priority": ["normal", "high"],
        "titles": ["Not getting bank shift notifications", "Push notifications stopped on Android",
                   "Staff missing shift offers", "App notifications not working", "No alerts for new bank shifts"],
        "symptoms": [
            "I don't get any notifications for bank shifts any more. By the time I open the app they've all gone.",
            "Half my team say they've stopped getting alerts from the app. Everyone who still gets them seems to "
            "have an iPhone.",
            "Our bank fill rate has dropped this month and more is going to agency. The bank staff say they're "
            "not being told about the shifts.",
            "I used to get a ping when the rota was published and when my swap was approved. Nothing since the "
            "app updated on my {phone}.",
            "The bank office put out an urgent shift for tonight on {ward} and none of the bank HCAs responded. "
            "When I rang round, they hadn't seen it.",
            "notifications are on in my phone settings and in the app settings but nothing comes through. the "
            "email ones arrive fine",
            "My colleague with an iPhone got the shift offer, I was standing next to her and my phone got "
            "nothing. {phone}, latest app.",
        ],
        "details": [
            "The app itself works, I can see and book shifts if I open it.",
            "Do not disturb is off.",
            "It started after the last app update.",
            "Restarting the phone didn't help.",
            "It's Android phones as far as I can tell.",
        ],
        "staff_cause": [
            "Version 6.1 of the Android app doesn't renew the phone's registration for push notifications after "
            "it updates, so the old registration stops being valid and nothing is delivered. iPhones aren't "
            "affected.",
            "It's a fault in our Android update: the notification token isn't refreshed after the upgrade, so "
            "our server is sending alerts to a registration Google no longer recognises.",
            "The phone isn't the problem. Since 6.1, Android devices lose their push registration when the app "
            "updates, and the app doesn't renew it until the person signs out.",
        ],
        "internal": ["Android 6.1 FCM token not refreshed on upgrade. MOB-561. Workaround: sign out/in; 6.1.2 "
                     "fixes.",
                     "Push failures for Android users again, FCM UNREGISTERED in delivery log. MOB-561."],
        "fixes": [
            "Ask the affected staff to sign out of the app (Profile > Sign out) and sign back in; that registers "
            "the phone again and notifications start straight away. Version 6.1.2, out this week, fixes it for "
            "good.",
            "6.1.2 is now in the Play Store and renews the registration automatically. Staff just need to update "
            "and open the app once.",
        ],
        "near": ["battery-saver", "not-in-ward-bank-pool", "auto-release-off"],
    },
    {
        "key": "ios-redirect-uri",
        "cause": "The iPhone app 6.2 signs in through a new redirect address that wasn't added to Rotawell's "
                 "Microsoft app registration: iPhone users signing in with their trust account get AADSTS50011",
        "tags": ["sso", "login", "mobile-app", "ios"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Can't log in on iPhone", "Microsoft sign in error on the app",
                   "AADSTS50011 when logging into the app", "iPhone app login broken after update",
                   "Staff locked out of the app"],
        "symptoms": [
            "Since updating the app on my iPhone I can't log in. It goes to the Microsoft page, I put my nhs.net "
            "details in, and then it shows an error about a reply URL.",
            "None of our iPhone users can get into the app this morning. Android and the website are working.",
            "The app login opens the Microsoft screen and then says something went wrong, with a long code "
            "starting AADSTS. I've reset my password twice.",
            "I'm an F1 and I can't see my rota on my phone. The ward computer works but I'm not always near one.",
            "Our IT service desk say it isn't their conditional access, the sign-in doesn't even reach our "
            "policies. The error mentions the redirect URI not matching.",
            "A nurse showed me her phone: after picking her trust account, Microsoft says the application is "
            "misconfigured. My own iPad still has the older app version and works.",
            "bank staff cant book shifts on iphone, the app wont let them sign in. been on the phone to the bank "
            "office all morning",
        ],
        "details": [
            "Our staff sign in with their trust Microsoft accounts.",
            "It started after the app update to 6.2.",
            "Signing in on the website in Safari on the same phone works.",
            "Deleting and reinstalling the app makes no difference.",
        ],
        "errors": ["AADSTS50011: The redirect URI specified in the request does not match the redirect URIs "
                   "configured for the application",
                   "AADSTS50011: The reply URL specified in the request does not match"],
        "staff_cause": [
            "This is a fault on our side. Version 6.2 of the iPhone app signs in through a new redirect address "
            "that we hadn't added to the Rotawell application in Microsoft, so Microsoft refuses the sign-in with "
            "AADSTS50011. Nothing in your tenant needs changing.",
            "The iOS 6.2 app is sending Microsoft a reply URL that our app registration doesn't list yet, which "
            "is exactly what AADSTS50011 means. Android and the website still use the old address, which is why "
            "they work.",
            "It's our app registration, not your trust's Microsoft setup: the new iPhone release uses a redirect "
            "address we forgot to register.",
        ],
        "internal": ["iOS 6.2 redirect URI missing from the multi-tenant app registration. AUTH-140. Added; can "
                     "take up to an hour to propagate.",
                     "AADSTS50011 on iOS 6.2 again, AUTH-140."],
        "fixes": [
            "We've added the new address to our Microsoft app registration. It can take up to an hour to reach "
            "every tenant; after that, staff just need to try signing in again.",
            "In the meantime, staff can sign in on the Rotawell website in Safari, which uses the old address "
            "and works normally.",
        ],
        "near": ["conditional-access-block", "personal-microsoft-account"],
    },
    {
        "key": "leave-nights-double",
        "cause": "Annual leave booked over night shifts is deducted for both calendar days each night touches: "
                 "night workers lose twice the hours from their entitlement",
        "tags": ["annual-leave", "nights", "entitlement"],
        "priority": ["normal", "normal", "high"],
        "titles": ["Annual leave balance wrong for night staff", "Too many hours taken for AL",
                   "Booked 3 nights off, 6 shifts deducted", "Leave entitlement gone negative", "AL deduction doubled"],
        "symptoms": [
            "I booked annual leave for three nights, 20:00 to 08:00, and my balance has gone down by 69 hours "
            "instead of about 34.",
            "One of my permanent night staff now shows minus {nn} hours of annual leave left and it's only "
            "{month}.",
            "The leave request screen shows 6 shifts requested when she's only asked for 3 nights off.",
            "Our night HCAs are all coming to me saying their leave entitlement is way lower than it should be. "
            "Day staff are fine.",
            "When I approve AL for nights it warns me the person will go over their entitlement. The numbers "
            "don't add up, she's hardly taken any leave this year.",
            "The leave report for {ward} says the night team has used nearly double what the day team has, "
            "which can't be right, we have the same number of staff.",
            "{nurse} rotates between days and nights and says leave taken on her night weeks costs twice as much "
            "as on her day weeks.",
        ],
        "details": [
            "All our nurses work 11.5 hour shifts.",
            "Leave is in hours for us, not days.",
            "The rota itself looks right, the person is off those nights.",
            "It's probably been like this since the leave year started, nobody noticed until now.",
        ],
        "staff_cause": [
            "When leave is booked over a night shift, the deduction is worked out for each calendar day the "
            "shift touches, so one night is charged twice. That's our bug.",
            "Nights cross midnight, and the leave calculation counts the start day and the finish day "
            "separately, so every night booked as annual leave takes two shifts' worth of hours off the balance.",
            "The entitlement is being double charged for night shifts only: each night of leave is split across "
            "two dates and both halves are deducted at the full shift length.",
        ],
        "internal": ["Leave over nights deducts per calendar day touched. LV-377. Recalculation script restores "
                     "balances.",
                     "Night AL double deduction, LV-377."],
        "fixes": [
            "We've run a recalculation for staff who booked leave over nights this leave year, and their "
            "balances are now corrected. Leave already approved stays approved.",
            "As a workaround until the fix is out, book night leave with the 'Shift-based' option on the request, "
            "which deducts the rostered shift once.",
        ],
        "near": ["leave-hours-long-day", "carry-over-cap"],
    },
    {
        "key": "staffing-night-template",
        "cause": "Since the staffing dashboard update, night shifts are checked against the ward's day demand "
                 "template: wards show red 'below safe staffing' alerts every night even when fully staffed",
        "tags": ["safe-staffing", "alerts", "dashboard"],
        "priority": ["high", "normal"],
        "titles": ["Safe staffing alerts every night", "Red staffing alert but ward fully staffed",
                   "Staffing dashboard wrong on nights", "Constant understaffing emails overnight",
                   "Nights showing short of RNs"],
        "symptoms": [
            "Every night this week {ward} has shown red on the staffing dashboard saying we're 2 RNs short. We "
            "had the full night team on.",
            "The site manager gets paged at 2am about wards being unsafe, and when they ring round, the wards "
            "are fine.",
            "On the dashboard the 'required' column for nights says 6 registered nurses. Our night numbers are "
            "4, the 6 is what we need on days.",
            "Matrons are starting to ignore the alerts because they're wrong every night, which worries me for "
            "when we're actually short.",
            "The safe staffing report for the board shows us below establishment on every night shift in "
            "{month}. This feeds our monthly return, it has to be right.",
            "i get an email at 20:00 every evening saying my ward is below minimum. days are fine",
            "Care hours per patient day for nights looks terrible on the report, but the actual staffing hasn't "
            "changed.",
        ],
        "details": [
            "We haven't changed our demand templates.",
            "Days and long days look correct.",
            "It started around the time the dashboard changed.",
            "It's every ward in the trust, not just mine.",
        ],
        "errors": ["Below safe staffing: Night - RN 4/6",
                   "Staffing alert: registered nurses below minimum (Night)"],
        "staff_cause": [
            "Since the dashboard update, night shifts are being checked against the day requirement from your "
            "demand template instead of the night one, so a ward staffed correctly for nights still looks short.",
            "The alert is wrong: the dashboard is picking up the day shift's minimum numbers for the night "
            "period. Your templates are fine.",
            "It's our bug. The staffing check matches the night shift to the wrong line of the demand template "
            "(the day line), so every night shows as below safe staffing.",
        ],
        "internal": ["Night shifts evaluated against the day demand line (SS-210) since dashboard 4.8. Alerts can "
                     "be muted per ward meanwhile.",
                     "SS-210 again: night vs day demand. Safe staffing reports need rebuilding after the fix."],
        "fixes": [
            "The fix is live and nights now compare against the night template. The safe staffing report for "
            "the affected weeks can be regenerated from Reports > Safe staffing > Rebuild.",
            "Until the fix ships, you can mute the night alert for a ward from its demand template page; the day "
            "alerts carry on working.",
        ],
        "near": ["escalation-beds-template", "supernumerary-not-counted"],
    },
    {
        "key": "terminal-offline-timestamp",
        "cause": "Clock-in terminals on firmware 3.4 upload punches stored while offline with the time they were "
                 "synced, not the time they were made: staff show as late or clocked at the wrong time after a "
                 "network drop",
        "tags": ["clock-in", "terminals", "timesheets"],
        "priority": ["normal", "high"],
        "titles": ["Clock in times wrong", "Staff showing as late when they weren't",
                   "Terminal clocking times all the same", "Timesheets wrong after Wi-Fi outage",
                   "Clock-in terminal recording wrong times"],
        "symptoms": [
            "{n} staff have been marked late this morning. They all clocked in at {terminal} before 07:30 and "
            "their timesheets say 09:40-something.",
            "After the Wi-Fi went down on {weekday}, everyone who clocked out that evening has exactly the same "
            "clock out time.",
            "My timesheet says I clocked in at {time} but I was on the ward at 07:15. I definitely tapped my "
            "badge, the screen said welcome.",
            "The lateness report has gone mad for one of our terminals. It's always after the terminal has been "
            "offline.",
            "Bank staff are getting paid short because their clock-in time is later than when they actually "
            "started. The ward manager is having to edit every one.",
            "The terminal showed a little cloud with a cross on it for a while yesterday. When it came back, all "
            "the punches from that time appeared with the same minute.",
            "Night staff clocking out at 08:00 are being recorded as 08:47, so they get overtime flags I have to "
            "reject.",
        ],
        "details": [
            "Terminals on other floors look fine.",
            "Our estates team say the network was down for about an hour.",
            "The clock on the terminal screen shows the right time.",
            "I think the terminals had new software installed last month.",
        ],
        "staff_cause": [
            "The terminal stores punches while it's offline, but since firmware 3.4 it uploads them with the time "
            "they were sent, not the time they were made. So everyone who clocked during the outage gets the "
            "reconnection time.",
            "It's a firmware bug: punches queued while the terminal had no network are stamped with the sync "
            "time when they upload, which is why they're all the same minute and why people look late.",
            "Nothing wrong with the badges or your network settings. Terminal firmware 3.4 puts the upload time "
            "on offline punches instead of the real time.",
        ],
        "internal": ["FW 3.4 offline queue uses sync timestamp (TERM-88). Original punch times are in the device "
                     "log; restored for this site.",
                     "TERM-88 again: same-minute punches after an outage."],
        "fixes": [
            "We've pulled the real punch times from the terminals' own logs and corrected the timesheets for the "
            "affected period. Firmware 3.4.1 is being pushed to your terminals overnight and fixes it.",
            "Please don't edit those timesheets by hand yet; we're restoring the original times from the "
            "terminal log, which keeps the audit trail clean.",
        ],
        "near": ["terminal-time-zone", "missed-clock-out"],
    },
    {
        "key": "cascade-from-creation",
        "cause": "The bank-to-agency cascade timer counts from when the shift was created, not when it was "
                 "released to bank: shifts planned in advance go straight to agencies without a bank-only window",
        "tags": ["bank", "agency", "cascade"],
        "priority": ["high", "normal", "high"],
        "titles": ["Shifts going to agency before bank staff can see them", "Agency cascade too early",
                   "Bank staff missing shifts that went to agency", "Agency spend up - shifts skipping bank",
                   "Cascade not waiting 48 hours"],
        "symptoms": [
            "We're finding shifts filled by agency that our own bank staff never had a chance to pick up. Our "
            "cascade is set to 48 hours bank-only.",
            "A bank nurse complained that a long day on {ward} was in her app at 10:00 and by 10:05 it said "
            "'filled by agency'.",
            "Our agency spend has gone up about {nn}% this month and finance want to know why. The bank fill rate "
            "has dropped at the same time.",
            "Shifts the ward managers put in weeks ahead show 'Released to agency' the moment we send them out to "
            "bank.",
            "{agency} rang to confirm a shift that we had only just advertised on bank. How did they even see "
            "it?",
            "When a ward raises a need on the day it works fine, bank gets it first. It's the ones planned in "
            "advance that go straight to agency.",
        ],
        "details": [
            "Our cascade settings haven't changed.",
            "It's mainly shifts planned a week or more ahead.",
            "The shift audit shows 'Cascade: released to tier 1 agency' right after the bank release.",
            "Agency costs us a lot more per shift, so this is urgent for us.",
        ],
        "staff_cause": [
            "The cascade timer is counting from when the shift was created instead of when it was released to "
            "bank. A shift created a week ago has already used up its 48 hours, so it goes to agency as soon as "
            "it's published.",
            "It's our cascade logic: the bank-only window is measured from the shift's creation time. For "
            "anything planned in advance, the window has expired before bank staff ever see it.",
            "Your settings are fine. We start the bank window at the wrong moment (shift creation rather than "
            "release to bank), so advance shifts skip straight to agency.",
        ],
        "internal": ["Cascade uses created_at not released_at. BNK-318. Agency fills can't be reversed; customer "
                     "asking about costs.",
                     "BNK-318 again, premature agency release."],
        "fixes": [
            "The fix is deployed: the bank-only window now starts when the shift is released to bank. Shifts "
            "already filled by agency stay filled, but anything not yet picked up has been pulled back to bank.",
            "Until the fix reaches you, you can turn on 'Hold for bank office approval' in Bank settings, which "
            "stops automatic release to agency.",
        ],
        "near": ["urgent-skip-bank", "ward-cascade-zero"],
    },
    {
        "key": "oncall-rollforward-duplicate",
        "cause": "Rolling forward a medical rota whose pattern week crosses a month end duplicates the on-call "
                 "shifts in that week: doctors appear on call twice and the working hours checks flag breaches",
        "tags": ["on-call", "medical-rota", "doctors"],
        "priority": ["normal", "high"],
        "titles": ["On-call shifts duplicated after roll forward", "Two registrars on the on-call list",
                   "Doctors showing double on-call", "Rota breaching 72 hours after rolling forward",
                   "Duplicate on-call on medical rota"],
        "symptoms": [
            "After rolling the medical rota forward to {month}, some on-call shifts appear twice for the same "
            "doctor on the same night.",
            "Switchboard rang the wrong registrar last night because the on-call list showed two names for "
            "medicine. Only one of them was actually on.",
            "The rota checker is flagging {doctor} as over 72 hours in a week, which is impossible with the "
            "pattern she's on.",
            "One of our F1s has an on-call listed twice in his app and thinks he's being paid for both, which "
            "he isn't.",
            "The hours for the last week of the month on our SHO rota come to more than the template. Only that "
            "week.",
            "Every month I have to go through the rota after rolling forward and delete duplicate on-calls. It's "
            "always around the month changeover.",
            "The on-call availability supplement looks doubled on the pay export for a couple of consultants.",
        ],
        "details": [
            "It's the medical rota, the nursing rotas are fine.",
            "I'm using Roll forward, not copying weeks by hand.",
            "The duplicates are identical, same times, same doctor.",
            "Deleting them works but they come back the next time I roll forward.",
        ],
        "staff_cause": [
            "Roll forward is duplicating on-call shifts in any pattern week that spans the end of a month: it "
            "copies that week once for each month. That's a bug in our roll forward.",
            "The doubles come from the roll forward step, which treats the week crossing the month end as "
            "belonging to both months and creates its on-call shifts twice.",
            "It's a known bug in Roll forward on medical rotas: the week straddling the month change gets its "
            "on-call shifts created twice, which is also what's tripping the working hours checks.",
        ],
        "internal": ["Roll forward duplicates the month-boundary week's on-calls (MED-97). Ran the dedupe tool "
                     "for the customer.",
                     "MED-97 again: duplicate on-call after roll forward."],
        "fixes": [
            "I've removed the duplicate on-call shifts from the rolled-forward periods, which also clears the "
            "working hours warnings. A fix for Roll forward is due in the next release.",
            "Until the fix, you can roll forward one month at a time and then run Rota > Tools > Find duplicate "
            "shifts, which lists and removes exact duplicates.",
        ],
        "near": ["copy-week-twice", "genuine-hours-breach"],
    },
    {
        "key": "bulk-approve-no-approver",
        "cause": "Bulk approving timesheets in the manager app marks them approved but doesn't record the "
                 "approver: the payroll export skips them as unauthorised, so the shifts aren't paid",
        "tags": ["timesheets", "payroll-export", "approvals"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Approved timesheets not paid", "Bank shifts missing from payroll",
                   "Timesheets approved but not exported", "Staff not paid for shifts I signed off",
                   "Export says timesheets unauthorised"],
        "symptoms": [
            "I approved all my bank timesheets on the app on {weekday} and none of them have been paid. Payroll "
            "say they never got them.",
            "The payroll export report lists {nn} timesheets as 'not authorised' but they all show as Approved "
            "in Rotawell.",
            "One of our bank HCAs hasn't been paid for four shifts. I can see the green tick next to each one.",
            "Timesheets I approved on the computer went through to payroll fine. The ones I did on my phone from "
            "home didn't.",
            "The 'approved by' column on the timesheet report is blank for some shifts even though they say "
            "approved.",
            "bank workers chasing pay, shifts are approved, been on the phone to payroll who say nothing came "
            "across from the rota",
        ],
        "details": [
            "I used Select all then Approve on the app.",
            "I tried approving them again but they're already approved so nothing happens.",
            "We've only noticed it on bank shifts, but we mostly approve bank on the app.",
            "The pay cut-off is this {weekday}.",
        ],
        "errors": ["Export skipped: timesheet has no authoriser ({num})", "Not exported: missing authorising manager"],
        "staff_cause": [
            "Bulk approval in the manager app sets the timesheets to approved but doesn't save who approved them. "
            "The payroll export needs an authoriser, so it skips those timesheets.",
            "It's the app's Select all > Approve: those approvals have no approver recorded, so the export treats "
            "them as unauthorised and leaves them out. Single approvals and the website are fine.",
            "The timesheets look approved but, because of a bug in bulk approve on mobile, there's no authorising "
            "manager on them and payroll never receives them.",
        ],
        "internal": ["Mobile bulk approve leaves approver_id null (MOB-590). Backfilled approver from audit and "
                     "re-ran the export.",
                     "MOB-590 unauthorised export again."],
        "fixes": [
            "I've filled in the approver on the affected timesheets from the audit log and they'll go out in a "
            "supplementary export today. Until the app fix is out, approve timesheets one at a time on the app, "
            "or in bulk on the website.",
            "The app update with the fix is out. Timesheets already affected have been corrected and will be in "
            "the next export.",
        ],
        "near": ["timesheet-after-cutoff", "bank-worker-no-assignment"],
        "near_clusters": ["period-end-night-split"],
    },
    {
        "key": "app-week-start-region",
        "cause": "The 6.0 app's week view takes the first day of the week from the phone's region: on phones set "
                 "to a Sunday-start region (US, Philippines...) the day headings are one day out",
        "tags": ["mobile-app", "rota", "my-shifts"],
        "priority": ["high", "normal"],
        "titles": ["App showing shifts on the wrong day", "Rota in the app one day out",
                   "Nurse came in on the wrong day", "My shifts don't match the ward rota", "Week view wrong in app"],
        "symptoms": [
            "My app says I'm working Tuesday and Thursday but the rota on the ward says Wednesday and Friday.",
            "One of our nurses turned up for a long day on {weekday} and she wasn't on. She showed me the app "
            "and it clearly had the shift on that day.",
            "Only some of my staff see their shifts on the wrong day. We put two iPhones side by side and they "
            "show different days for the same shift.",
            "The week in the app starts on Sunday now and all the shifts look shifted by one. When I tap the "
            "shift, the date in the details is correct.",
            "We had a no-show on nights and the nurse says the app told her she was on the next night.",
            "since the update my shifts in the app are one day before. my friend phone is ok",
            "Staff who joined us from overseas keep getting their days wrong. I thought it was just them being "
            "new, but their app shows the rota differently from mine.",
        ],
        "details": [
            "The shift details page has the right date, it's only the week view.",
            "Most of the staff affected trained abroad and their phones are still set to their home country.",
            "The website shows the correct days.",
            "It seems to have started with the new app design.",
        ],
        "staff_cause": [
            "The week view in the 6.0 app takes the first day of the week from the phone's region settings. On "
            "phones set to a region where the week starts on Sunday, the day headings don't line up with the "
            "shifts, so everything looks one day early.",
            "It's our app, not the rota: the week grid labels follow the phone's region, and for Sunday-start "
            "regions the labels are shifted by a day. The shift details show the correct date.",
            "The rota is right. Phones set to a region like the US or the Philippines start the week on Sunday, "
            "and our new week view doesn't handle that, so the days are labelled one off.",
        ],
        "internal": ["Week view takes firstWeekday from the phone region but the grid assumes Monday (MOB-602). "
                     "Workaround: region United Kingdom.",
                     "MOB-602 wrong day in app; affected staff have Philippines / US region."],
        "fixes": [
            "Version 6.0.3 fixes the week view. Until staff update, changing the phone's region to United "
            "Kingdom (the language can stay the same) makes the days line up.",
            "We've released the fix; please ask staff to update the app, and to use the list view if they're "
            "unsure in the meantime.",
        ],
        "near": ["app-offline-cache", "shift-moved-after-publish"],
    },
    {
        "key": "study-leave-budget-rotation",
        "cause": "The yearly study leave budget rollover skipped doctors whose grade changed at the August "
                 "rotation: their budget is £0 and study leave requests with costs are auto-declined",
        "tags": ["study-leave", "doctors", "leave"],
        "priority": ["normal", "low", "normal"],
        "titles": ["Study leave request auto declined", "Study leave budget showing £0",
                   "Can't claim course fee - no budget", "Doctors' study leave budgets wrong",
                   "Study leave rejected 'insufficient budget'"],
        "symptoms": [
            "My study leave request for a course in {month} was declined automatically within a minute. It says "
            "insufficient budget but I haven't used any this year.",
            "Several of our new ST1s and F2s have a study leave budget of £0. The consultants look normal.",
            "As medical staffing manager I can't approve study leave for {doctor}, the approve button is greyed "
            "out and it mentions the budget.",
            "A registrar who went up from ST2 to ST3 in August has no study leave allowance at all, even though "
            "she only took one day last year.",
            "study leave with no cost goes through fine but as soon as i add the exam fee it gets rejected",
            "Our postgraduate education team noticed the budget report for the new year is missing about a third "
            "of the trainees.",
        ],
        "details": [
            "They all changed grade at the August changeover.",
            "Their grade on the profile is correct.",
            "It's this year's budget that's wrong, last year's figures are still there.",
            "Study leave without expenses can still be requested.",
        ],
        "errors": ["Request declined: insufficient study leave budget (£0.00 remaining)"],
        "staff_cause": [
            "The yearly study leave budget rollover skipped every doctor whose grade changed at the August "
            "rotation, so they start the year with £0 and any request with a cost is declined automatically.",
            "It's the budget rollover: doctors who rotated to a new grade in August didn't get a new year's "
            "allowance, because the job looked them up by their old grade.",
            "Nothing to do with the requests themselves. Trainees whose grade changed at changeover were missed "
            "by our study leave budget rollover and have a zero budget for this year.",
        ],
        "internal": ["Study leave rollover joined on previous grade and skipped grade changers (LV-391). Re-ran "
                     "the rollover for the customer.",
                     "LV-391 zero study leave budget again."],
        "fixes": [
            "I've re-run the budget rollover for your trainees and their study leave budgets are now in place. "
            "Requests that were auto-declined can be submitted again.",
            "The budgets are restored. If you'd rather not ask doctors to resubmit, medical staffing can reopen "
            "the declined requests from Leave > Study leave > Declined.",
        ],
        "near": ["study-leave-supervisor"],
    },
    {
        "key": "bank-rate-card-stale",
        "cause": "The 2026/27 Agenda for Change pay award was applied to the substantive rate card but not to the "
                 "bank rate card, which is held separately: bank shifts are still priced and exported at last "
                 "year's rates",
        "tags": ["bank", "pay-rates", "payroll-export"],
        "priority": ["normal", "high"],
        "titles": ["Bank rates not updated for pay award", "Bank staff paid old hourly rate",
                   "Pay award missing on bank shifts", "Bank shift rate in app is last year's",
                   "Bank pay lower than substantive"],
        "symptoms": [
            "Our bank HCAs are still being paid last year's hourly rate. The pay award went through for "
            "substantive staff in {month}.",
            "The hourly rate shown on bank shifts in the app is lower than what I get on my substantive contract "
            "for the same band.",
            "Payroll have flagged that the bank export is still using the old Band 5 rate. They want to know if "
            "they should uplift it by hand.",
            "A band 3 on our bank worked {n} shifts last month and was paid less per hour than a band 3 on the "
            "ward. That's not allowed under our bank terms.",
            "Finance noticed our bank cost per shift hasn't gone up at all since the pay award, which they "
            "thought was great until they realised the staff are being underpaid.",
            "Bank workers are asking when their pay award backpay is coming, substantive staff have already had "
            "theirs.",
        ],
        "details": [
            "The substantive rates were updated automatically.",
            "It's all bands as far as I can see.",
            "We don't manage the bank rates separately, we assumed they followed the AfC tables.",
            "The agency rates are fine, those are agreed with the agencies.",
        ],
        "staff_cause": [
            "The pay award was applied to your substantive rate card, but your bank rate card is a separate copy "
            "that our update didn't touch, so bank shifts are still priced at last year's Agenda for Change "
            "rates.",
            "Your bank shifts use their own rate card, and our uplift for the 2026/27 award only updated the "
            "substantive one. That's our mistake.",
            "The bank rate card missed the pay award uplift. Substantive pay comes from a different card, which "
            "was uplifted, hence the difference.",
        ],
        "internal": ["AfC 26/27 uplift skipped linked bank rate cards (BNK-331). Uplift applied; arrears export "
                     "from 1 April generated.",
                     "BNK-331 stale bank rates, sent arrears file."],
        "fixes": [
            "We've applied the uplift to your bank rate card, and future bank shifts use the new rates. We've "
            "also produced an arrears file for bank shifts worked since 1 April, which payroll can load as a "
            "one-off.",
            "Shifts already booked are repriced at the new rate automatically; the app shows the new rate once "
            "staff refresh.",
        ],
        "near": ["bank-profile-wrong-band", "bank-terms-flat-rate"],
    },
]

NEAR_MISSES = [
    {"key": "night-break-deducted", "cause": "The trust's break rule deducts an unpaid hour from every night shift "
     "(working as configured)",
     "tags": ["timesheets", "nights"], "titles": ["Night shift paid short", "Hours missing from night timesheet"],
     "symptoms": ["One of our new night nurses says she was only paid 11 hours for a 12-hour night and thinks the "
                  "payroll export cut her shift short.",
                  "Night timesheets for {ward} show 11 paid hours when the shift is 20:00 to 08:00. Is the export "
                  "dropping time?"],
     "staff_cause": ["Nothing is being lost in the export. Your trust's break rule deducts a 60-minute unpaid break "
                     "from every night shift, so a 20:00 to 08:00 night is paid as 11 hours. It's set under "
                     "Settings > Pay rules > Breaks.",
                     "The missing hour is the unpaid break, deducted under your own break rules, not an export "
                     "problem."],
     "fixes": ["If she didn't get her break, the ward manager can tick 'Break not taken' on that timesheet and "
               "approve it again, and the hour will be paid."]},
    {"key": "missed-clock-out", "cause": "The staff member didn't clock out, so the timesheet closed at the "
     "rostered end time",
     "tags": ["clock-in", "timesheets"], "titles": ["Timesheet shows wrong finish time", "Hours short after a night"],
     "symptoms": ["A nurse on nights stayed until 09:30 to finish handover and her timesheet says she finished at "
                  "08:00. She's sure she clocked out.",
                  "My timesheet finish time for {weekday} is wrong, it just shows the rota end time, not when I "
                  "actually left."],
     "staff_cause": ["There's no clock-out punch for that shift on any terminal, so the timesheet closed at the "
                     "rostered end time, which is what happens when a punch is missing. The terminal had no "
                     "problems that morning.",
                     "The terminal log has her clock-in but no clock-out, so the system used the rota finish. It "
                     "looks like the badge tap didn't register."],
     "fixes": ["The ward manager can amend the finish time on the timesheet with the reason 'Missed punch' and "
               "approve it."]},
    {"key": "training-wrong-level", "cause": "The nurse completed Level 2 safeguarding but her role requires Level 3",
     "tags": ["compliance", "e-learning"], "titles": ["Still blocked after doing training",
                                                      "Compliance flag won't clear"],
     "symptoms": ["I did my safeguarding training on the e-learning last week and I'm still blocked from booking "
                  "bank. Everyone says it should have updated by now."],
     "staff_cause": ["Her record did update: the course she completed was Safeguarding Adults Level 2, but her role "
                     "requires Level 3, so that requirement is still outstanding and the block is correct.",
                     "The completion came through fine; it's a different level of the course from the one her "
                     "role needs."],
     "fixes": ["Once she completes the Level 3 module, the block lifts with the next import."]},
    {"key": "lms-file-not-sent", "cause": "The trust's learning system stopped sending its nightly training file",
     "tags": ["compliance", "e-learning", "integration"],
     "titles": ["Training completions not coming through", "Compliance not updated this week"],
     "symptoms": ["None of the training our staff have done since {weekday} has shown up in Rotawell, so people are "
                  "still showing red.",
                  "A whole group of staff renewed {course} this week and their compliance dates haven't moved."],
     "staff_cause": ["We haven't received a training file from your learning system since {weekday}; the last one "
                     "imported completely, with no errors. It's the sending side that has stopped, so it's one for "
                     "your LMS team.",
                     "Our import runs every hour but there's been no new file in the drop folder for several days. "
                     "Your e-learning system's scheduled export seems to have stopped."],
     "fixes": ["Once your LMS team re-runs their export, we'll pick it up at the next import and the flags will "
               "clear."]},
    {"key": "swap-awaiting-other-ward", "cause": "A swap between two wards still needs the second ward manager's "
     "approval",
     "tags": ["shift-swaps"], "titles": ["Swap not showing on rota", "Shift swap not gone through"],
     "symptoms": ["I swapped a shift with a nurse from the ward next door a week ago, my manager approved it, but "
                  "the rota still shows me on my original shift."],
     "staff_cause": ["Because the swap is between two wards, it needs approving by both ward managers. Yours has "
                     "approved it, but it's still waiting for the other ward's manager, so neither rota has "
                     "changed yet.",
                     "The swap is half approved: cross-ward swaps need the second ward's approval too, and that's "
                     "still pending."],
     "fixes": ["Ask the other ward's manager to approve it under Requests > Swaps; both rotas update immediately."]},
    {"key": "edited-unpublished-draft", "cause": "The manager changed the draft roster but didn't publish it",
     "tags": ["rota", "publishing"], "titles": ["Staff can't see rota changes", "Changes not showing in the app"],
     "symptoms": ["I moved two staff onto different shifts yesterday and they're telling me their app still shows "
                  "the old shifts.",
                  "I changed several people's shifts and saved the rota, but the staff say nothing has changed for "
                  "them."],
     "staff_cause": ["The changes are saved in the roster's draft, which hasn't been published since, so staff "
                     "still see the last published version. That's how drafts work.",
                     "Saving a roster doesn't publish it. Your edits are in the draft; staff see them only after "
                     "you click Publish."],
     "fixes": ["Click Publish on the roster period; staff get a notification and the app updates."]},
    {"key": "battery-saver", "cause": "The phone's battery optimisation holds the app's notifications",
     "tags": ["mobile-app", "notifications", "android"],
     "titles": ["Notifications only arrive when I open the app", "Alerts arrive hours late"],
     "symptoms": ["I only get Rotawell notifications when I open the app, then they all come at once. The shifts "
                  "are gone by then.",
                  "Shift alerts arrive hours late on my phone, my colleague gets them straight away."],
     "staff_cause": ["Her phone's battery saver is putting the app to sleep, so notifications are held until the "
                     "app is opened. The app is registered correctly: we can see deliveries to her phone succeed.",
                     "Deliveries to that phone are succeeding on our side but are held by the phone's battery "
                     "optimisation, which is common on Samsung and Xiaomi phones."],
     "fixes": ["On the phone, go to Settings > Apps > Rotawell > Battery and choose 'Unrestricted'."]},
    {"key": "not-in-ward-bank-pool", "cause": "The bank worker isn't in the bank pool for that ward",
     "tags": ["bank", "notifications"], "titles": ["Not offered shifts on one ward", "Bank shifts for ITU not showing"],
     "symptoms": ["I get bank shift alerts for most wards but never for {ward}, even though I used to work there.",
                  "A bank nurse says she never sees any shifts for our unit but her friend does."],
     "staff_cause": ["She isn't in the bank pool for that ward: her bank profile lists four wards and not that one. "
                     "Shifts are only offered to people in the ward's pool, so it's a setting, not a notification "
                     "problem.",
                     "Her notifications are working; she just isn't eligible for that ward's shifts because it's "
                     "not on her bank profile."],
     "fixes": ["The bank office can add the ward on her profile under Bank > Wards I work on."]},
    {"key": "conditional-access-block", "cause": "The trust's own Conditional Access policy blocks sign-in from "
     "unmanaged phones",
     "tags": ["sso", "login"], "titles": ["Staff can't sign in on personal phones", "Sign in blocked on the app"],
     "symptoms": ["Staff can sign in on the ward computers but not on their own phones. Microsoft shows a message "
                  "saying access has been blocked.",
                  "Since {weekday}, nobody can log in to the app on their own phones. Trust iPads are fine."],
     "errors": ["AADSTS53003: Access has been blocked by Conditional Access policies"],
     "staff_cause": ["That error comes from your trust's own Microsoft tenant: a Conditional Access policy is "
                     "blocking sign-ins from devices the trust doesn't manage. The request never reaches Rotawell, "
                     "so it needs your IT team.",
                     "AADSTS53003 means your IT department's Conditional Access policy stopped the sign-in. Your IT "
                     "team can exclude the Rotawell app from the policy or allow personal devices."]},
    {"key": "personal-microsoft-account", "cause": "The nurse signs in with her personal Microsoft account instead "
     "of her trust account",
     "tags": ["sso", "login"], "titles": ["Cannot log in with Microsoft", "Login says account doesn't exist"],
     "symptoms": ["One of our nurses can't log into the app. It goes to Microsoft, she picks her account, and then "
                  "it says her account isn't in our organisation.",
                  "When I sign in with Microsoft it says my account does not exist in the tenant."],
     "errors": ["AADSTS50020: User account from identity provider 'live.com' does not exist in tenant"],
     "staff_cause": ["She's choosing her personal Microsoft account (a hotmail address) on the sign-in page rather "
                     "than her trust account. The personal account doesn't exist in your trust's directory, hence "
                     "the error.",
                     "The error mentions live.com, which means a personal Microsoft account was used."],
     "fixes": ["Pick 'Use another account' on the Microsoft page and enter the trust email address."]},
    {"key": "leave-hours-long-day", "cause": "Leave is counted in hours: a long day of leave deducts 11.5 hours "
     "(expected)",
     "tags": ["annual-leave", "entitlement"], "titles": ["Too much annual leave taken off",
                                                         "AL balance dropped more than expected"],
     "symptoms": ["I booked one day of annual leave and my balance dropped by 11.5. I thought a day was 7.5 hours.",
                  "A nurse says her annual leave went down by more than a day for one long day off."],
     "staff_cause": ["Your trust records leave in hours, and the leave was booked over a long day, so it deducts "
                     "the 11.5 hours of the rostered shift. That's expected: it also means fewer shifts need "
                     "booking as leave to take a full week off.",
                     "That's how hours-based leave works: the deduction matches the length of the shift taken off, "
                     "11.5 hours for a long day."]},
    {"key": "carry-over-cap", "cause": "Carry-over from the previous leave year was capped at the trust's limit",
     "tags": ["annual-leave", "entitlement"], "titles": ["Leave balance lower than it should be",
                                                         "Missing hours from annual leave"],
     "symptoms": ["My annual leave balance for this year is lower than I worked out. I had about 60 hours left over "
                  "from last year.",
                  "Several staff say their leave balance has been missing hours since the new leave year started."],
     "staff_cause": ["At the leave year rollover, your trust's policy caps carry-over at 37.5 hours, so anything "
                     "above that wasn't carried forward. The cap is under Settings > Leave > Carry-over.",
                     "Their carried-over leave was capped at your policy limit when the leave year rolled over. "
                     "The policy is working as set up."]},
    {"key": "escalation-beds-template", "cause": "The ward's demand template was raised for escalation beds, so "
     "every shift is measured against higher numbers",
     "tags": ["safe-staffing", "demand-template"], "titles": ["Staffing dashboard says we're short all the time"],
     "symptoms": ["Since the escalation beds opened, the dashboard shows us amber or red on every shift, days and "
                  "nights.",
                  "The staffing levels for {ward} look wrong, it wants more staff than we've ever had."],
     "staff_cause": ["The ward's demand template was raised on {date} to cover the escalation beds (from 24 to 30 "
                     "beds), so every shift is now measured against the higher numbers. The dashboard is doing "
                     "what the template says.",
                     "Someone updated the demand template for the extra beds, which raised the required numbers "
                     "for days and nights alike."],
     "fixes": ["If the escalation beds have closed again, switch the ward back to its standard template under Unit "
               "> Demand templates."]},
    {"key": "supernumerary-not-counted", "cause": "A new starter rostered as supernumerary isn't counted in "
     "staffing numbers (expected)",
     "tags": ["safe-staffing"], "titles": ["Dashboard says we're one nurse short but we're not"],
     "symptoms": ["The dashboard shows us one RN short on the day shift today. We have five on, which is our "
                  "number."],
     "staff_cause": ["One of the five is a new starter rostered as supernumerary for her induction weeks, and "
                     "supernumerary staff don't count towards safe staffing numbers. The dashboard is right to "
                     "show four.",
                     "The fifth nurse is marked supernumerary on the roster, so she's deliberately left out of the "
                     "count."]},
    {"key": "terminal-time-zone", "cause": "A replacement terminal was set up with the wrong time zone",
     "tags": ["clock-in", "terminals"], "titles": ["New terminal clocking an hour out"],
     "symptoms": ["Every clock in on the new terminal on {ward} is exactly an hour out. It's been like that since "
                  "it was swapped."],
     "staff_cause": ["The replacement terminal was set up with the time zone UTC instead of Europe/London, so its "
                     "punches are an hour out while British Summer Time is on. Punches aren't delayed or queued; "
                     "it's just the terminal's setting.",
                     "That terminal's time zone is set wrong, so every punch on it is an hour out."],
     "fixes": ["We've set the terminal's time zone remotely. Punches already recorded can be corrected in bulk "
               "from Terminals > Corrections."]},
    {"key": "urgent-skip-bank", "cause": "The request was raised with 'Urgent: release to agency now' ticked",
     "tags": ["bank", "agency"], "titles": ["Shift went to agency straight away"],
     "symptoms": ["A night shift on {ward} went to agency within minutes of being put out, bank staff didn't get a "
                  "chance."],
     "staff_cause": ["The request was raised with 'Urgent: release to agency now' ticked, which skips the bank-only "
                     "window by design. The audit shows the ward manager set it when the shift was created.",
                     "That shift was flagged urgent for agency when it was raised, so the cascade went straight to "
                     "agency as it's meant to."]},
    {"key": "ward-cascade-zero", "cause": "The unit's own cascade rule has a 0-hour bank-only window",
     "tags": ["bank", "agency", "settings"], "titles": ["ITU shifts going straight to agency"],
     "symptoms": ["All the shifts from ITU seem to go to agencies at the same time as bank. Other wards get the "
                  "bank-only period."],
     "staff_cause": ["ITU has its own cascade rule with a 0-hour bank-only window, which overrides the trust "
                     "default of 48 hours. It looks like it was set when critical care was set up.",
                     "There's a ward-level cascade rule on ITU that releases to agency immediately."],
     "fixes": ["Change it under Bank settings > Cascade rules > ITU, or delete the ward rule so the trust default "
               "applies."]},
    {"key": "copy-week-twice", "cause": "A rota coordinator ran Copy week twice on the same week",
     "tags": ["on-call", "medical-rota"], "titles": ["Duplicate on-call shifts", "Every shift twice on the rota"],
     "symptoms": ["Our surgical registrar on-call rota for the week of {date} has every shift twice."],
     "staff_cause": ["The audit shows Copy week was run twice on that week by one of your rota coordinators, a few "
                     "minutes apart, so every shift was created twice. Roll forward wasn't involved.",
                     "Those duplicates were made by running Copy week twice on the same week."],
     "fixes": ["Rota > Tools > Find duplicate shifts will list and remove them."]},
    {"key": "genuine-hours-breach", "cause": "The doctor really is over 72 hours because of an extra locum shift",
     "tags": ["on-call", "doctors", "working-time"], "titles": ["Rota saying doctor over 72 hours"],
     "symptoms": ["The rota checker keeps flagging {doctor} as breaching 72 hours in a week. Her rota pattern "
                  "doesn't come to that."],
     "staff_cause": ["The pattern alone is fine, but she has also booked a locum bank shift that week and the check "
                     "counts every shift she works. With the locum shift she's at 79 hours, so the warning is "
                     "correct.",
                     "The breach is real: there's an extra locum shift on top of her rota that week."]},
    {"key": "timesheet-after-cutoff", "cause": "Timesheets approved after the pay period cut-off go into the next "
     "period's export (expected)",
     "tags": ["timesheets", "payroll-export"], "titles": ["Approved shifts not in this month's pay"],
     "symptoms": ["A bank nurse hasn't been paid for shifts in the last week of the month. The timesheets are "
                  "approved."],
     "staff_cause": ["They were approved on the 3rd, after your cut-off on the 1st, so they'll be paid next month. "
                     "The approver is recorded and they're queued for the next export.",
                     "Those timesheets missed the cut-off by two days, so they roll into the next pay period."]},
    {"key": "bank-worker-no-assignment", "cause": "A new bank worker has no payroll assignment number yet",
     "tags": ["bank", "payroll-export"], "titles": ["New bank worker not paid"],
     "symptoms": ["Our new bank HCA did her first three shifts and hasn't been paid. Her timesheets are approved."],
     "errors": ["Export skipped: no payroll assignment number"],
     "staff_cause": ["Her profile has no payroll assignment number yet, and the export can't send hours for "
                     "someone without one. The bank office needs to add it once payroll has set her up.",
                     "She's missing an assignment number, so her approved hours are held back from the export."]},
    {"key": "app-offline-cache", "cause": "The app was showing its saved copy because the phone was offline",
     "tags": ["mobile-app", "rota"], "titles": ["App showing old rota"],
     "symptoms": ["My app showed me on a late on {weekday} but the ward says I was moved to an early days ago."],
     "staff_cause": ["The app was showing the copy it saved the last time it synced, because the phone had no data "
                     "connection (there's an 'Offline, last updated' banner at the top). The change was published "
                     "correctly.",
                     "Her phone hadn't synced for several days, so the app was showing an old offline copy."]},
    {"key": "shift-moved-after-publish", "cause": "The ward manager moved the shift after publishing and the change "
     "notification was missed",
     "tags": ["rota", "notifications"], "titles": ["Nurse came in on the wrong day"],
     "symptoms": ["One of our nurses came in on {weekday} for a shift she wasn't on. She says the app showed it."],
     "staff_cause": ["The shift was moved by the ward manager on {date}, after the rota was published, and a change "
                     "notification was sent then. Before that date the app did show the old day, so it was right "
                     "each time; the change was just missed.",
                     "The shift was changed after publishing. The app updated and notified her, but she'd read "
                     "the old rota."]},
    {"key": "study-leave-supervisor", "cause": "The study leave request is waiting for the educational "
     "supervisor's sign-off",
     "tags": ["study-leave", "doctors"], "titles": ["Study leave not approved after weeks"],
     "symptoms": ["I applied for study leave three weeks ago and it still says pending. The course is soon."],
     "staff_cause": ["It's at the first step: study leave needs the educational supervisor's sign-off before "
                     "medical staffing see it, and your supervisor hasn't actioned it yet. Nothing's wrong with "
                     "the budget.",
                     "The request is waiting on your educational supervisor, not medical staffing."]},
    {"key": "bank-profile-wrong-band", "cause": "The HCA's bank profile still has Band 2 after a promotion to "
     "Band 3",
     "tags": ["bank", "pay-rates"], "titles": ["Bank rate lower than it should be"],
     "symptoms": ["I got promoted to band 3 in the summer but my bank shifts still pay band 2."],
     "staff_cause": ["Her bank profile still has Band 2. Bank grades are kept separately from substantive ones and "
                     "weren't updated when she was promoted. The rate card itself is right.",
                     "The bank grade on her profile is out of date, so bank shifts are priced at Band 2."]},
    {"key": "bank-terms-flat-rate", "cause": "The worker is on the trust's flat-rate bank terms, which have no "
     "enhancements",
     "tags": ["bank", "enhancements"], "titles": ["No weekend enhancement on bank"],
     "symptoms": ["A new bank worker says her weekend shifts aren't enhanced. She came from another trust where "
                  "they were."],
     "staff_cause": ["She's on your 'Bank - flat rate' terms, which pay one all-inclusive hourly rate with no "
                     "unsocial hours enhancements, on every day of the week. That's how those terms are set up.",
                     "Her bank terms are the flat-rate ones, which don't carry enhancements at all."]},
    {"key": "auto-release-off", "cause": "Automatic release to bank is switched off for the ward, so vacancies wait "
     "for someone to send them",
     "tags": ["bank", "sickness", "settings"], "titles": ["Sickness cover never went to bank"],
     "symptoms": ["Someone went sick on {ward} this morning and not one bank nurse got an alert for the shift. The "
                  "bank office says they never saw it either. It shows as an open shift on our roster."],
     "staff_cause": ["The vacancy was created correctly, but {ward} has automatic release to bank switched off, so "
                     "open shifts wait until someone clicks 'Send to bank'. Nobody did, so it sat on the roster.",
                     "The open shift is there; it just wasn't sent, because that ward releases to bank manually."],
     "fixes": ["Turn on Bank settings > Auto-release for the ward, or use 'Send to bank' on the open shift."]},
]

SINGLETONS = [
    {"title": "Setting up a new ward", "tags": ["setup", "how-to"],
     "body": "We're opening a new 18-bed surgical assessment unit on {date}. How do I set it up with its own rota and "
             "staffing numbers?",
     "reply": "Add it under Organisation > Units > Add unit, then copy the demand template from a similar ward and "
              "add staff to its establishment. It's available to roster straight away."},
    {"title": "Leaver still on rota", "tags": ["rota", "leavers"],
     "body": "{nurse} left at the end of {month} but she still appears on the roster for next month.",
     "reply": "Set her leaving date on her profile. Shifts after that date are removed and shown as unfilled so you "
              "can cover them."},
    {"title": "New shift type for twilights", "tags": ["shift-types", "how-to"],
     "body": "We want to add a twilight shift 17:00 to 23:00 for HCAs. How do I create a new shift type?",
     "reply": "Settings > Shift types > New. Give it a code (e.g. TW), times and break, and tick the units that can "
              "use it."},
    {"title": "Dark mode", "tags": ["mobile-app", "feature-request"],
     "body": "Any chance of a dark mode on the app? Night staff say it's blinding at 3am."},
    {"title": "Invoice seat count", "tags": ["billing", "invoices"],
     "body": "Our invoice for {month} counts {nn} more seats than we have staff. Can you check?",
     "reply": "Seats count everyone with an active profile in the billing month, including bank-only workers. "
              "Leavers drop off the month after their leaving date."},
    {"title": "Reset two-factor for bank office manager", "tags": ["login", "security"],
     "body": "Our bank office manager has a new phone and lost her authenticator app. She can't get into Rotawell.",
     "reply": "We've sent a verification email to your account owner; once they confirm, we'll reset her two-factor "
              "sign-in so she can enrol the new phone."},
    {"title": "How do staff request days off", "tags": ["requests", "how-to"],
     "body": "New starter question: how do staff put in requests for specific days off before the rota is done?",
     "reply": "Through Requests in the app while the roster period's request window is open. The ward manager sets "
              "the window and how many requests each person can make per period."},
    {"title": "Rule for maximum consecutive nights", "tags": ["rules", "how-to"],
     "body": "Can I set a warning when someone is rostered more than 4 nights in a row?",
     "reply": "Yes, under Settings > Roster rules > Consecutive shifts. You can choose warn or block."},
    {"title": "Print rota for the ward office", "tags": ["rota", "export"],
     "body": "The staff like a paper copy on the wall. What's the best way to print the 4-week rota?",
     "reply": "Roster > Print > Wall chart gives a landscape PDF for the period, with shift codes and a key."},
    {"title": "Read-only on-call for switchboard", "tags": ["on-call", "permissions"],
     "body": "Switchboard want to see who is on call without being able to change anything. What role should they "
             "have?",
     "reply": "Give them the On-call viewer role; it shows today's on-call list for every specialty and nothing "
              "else."},
    {"title": "Agency locums seeing their shifts", "tags": ["agency", "doctors"],
     "body": "Our agency locum doctors want to see their shifts in the app. Can we give them access?",
     "reply": "Agency workers see bookings through their agency, not the Rotawell app. The agency portal shows each "
              "booking's details."},
    {"title": "Subject access request", "tags": ["gdpr", "data"],
     "body": "A former HCA has made a subject access request. Can we get everything Rotawell holds on her, including "
             "clock-in records?"},
    {"title": "Shift colours", "tags": ["rota", "settings"],
     "body": "Can we change the colours of shifts on the roster? Nights and lates look almost the same.",
     "reply": "Yes, each shift type has a colour under Settings > Shift types."},
    {"title": "Where to record DBS renewal", "tags": ["compliance", "how-to"],
     "body": "We need to track DBS renewal dates for our bank staff. Is there somewhere in Rotawell for that?",
     "reply": "Add a custom compliance item (Settings > Compliance > Items) called DBS with a renewal period; it "
              "then appears on each person's Compliance tab."},
    {"title": "Rostering student nurses", "tags": ["rota", "students"],
     "body": "We have student nurses on placement from {month}. Can they go on the roster without counting in our "
             "numbers?",
     "reply": "Add them with the Student staff group. They show on the roster and are never counted towards safe "
              "staffing."},
    {"title": "Terminal screen cracked", "tags": ["terminals", "hardware"],
     "body": "{terminal} at {site} has a cracked screen and doesn't respond to badges on the left side. How do we "
             "get it replaced?",
     "reply": "I've raised a replacement; a courier will bring a pre-configured terminal within three working days "
              "and collect the broken one."},
    {"title": "Buying more clock-in terminals", "tags": ["terminals", "sales"],
     "body": "We'd like four more terminals for the new outpatients block. Who do I speak to?",
     "reply": "I've passed your details to your account manager, who will send a quote."},
    {"title": "Deputy ward manager permissions", "tags": ["permissions", "how-to"],
     "body": "My deputy needs to approve leave and timesheets when I'm off, but not change the demand template. Is "
             "there a role for that?",
     "reply": "Yes, the Deputy ward manager role does exactly that. Assign it on her profile under Roles."},
    {"title": "Bank worker wants no text messages", "tags": ["notifications", "bank"],
     "body": "One of our bank nurses is getting texts for every shift and wants them to stop but keep the app "
             "notifications.",
     "reply": "She can untick SMS under Profile > Notifications in the app; push and email stay on."},
    {"title": "API for our bed management system", "tags": ["api", "integrations"],
     "body": "Our bed management system wants to pull staffing numbers per ward every hour. Do you have an API?",
     "reply": "Yes, the Staffing API is on the Enterprise plan. Your e-roster lead can create a key under Settings > "
              "Integrations."},
    {"title": "Matron can only see one ward", "tags": ["permissions", "matron"],
     "body": "I've just started as matron for medicine and can only see {ward}. I should see all eight wards.",
     "reply": "Your account has the Ward manager role for one unit. I've changed it to Matron for the Medicine care "
              "group, which gives you all its wards."},
    {"title": "How are unsocial hours worked out on a long day", "tags": ["enhancements", "question"],
     "body": "Can someone explain how the unsocial hours on a weekday long day are calculated? Staff keep asking me.",
     "reply": "Hours between 20:00 and 06:00 on weekdays attract the night enhancement; the rest of a weekday long "
              "day is plain time. The pay breakdown on each timesheet shows the split."},
    {"title": "Leave for a new starter", "tags": ["annual-leave", "question"],
     "body": "A new RN starts on {date}. Will her annual leave be pro rata automatically or do I have to work it "
             "out?",
     "reply": "It's pro-rated automatically from her start date and contracted hours."},
    {"title": "Can staff see each other's phone numbers?", "tags": ["privacy", "question"],
     "body": "One of my HCAs is worried her mobile number is visible to everyone on the app. Is it?",
     "reply": "No. Phone numbers are only visible to managers and the bank office, never to other staff."},
    {"title": "Agency spend by ward", "tags": ["reports", "agency"],
     "body": "Finance want agency spend broken down by ward for the last quarter. Is there a report?",
     "reply": "Reports > Temporary staffing > Agency spend, grouped by unit, with a CSV export."},
    {"title": "Training for new rota coordinators", "tags": ["training"],
     "body": "We have three new rota coordinators starting. Do you run any training sessions?",
     "reply": "Yes, there's a free two-hour webinar every other Tuesday; I've sent the booking link."},
    {"title": "Nurse has two profiles", "tags": ["profiles", "data"],
     "body": "{nurse} has one profile as substantive and another as bank. Can they be merged?",
     "reply": "They can be linked rather than merged: link the bank profile to the substantive one under Profile > "
              "Linked roles and she'll have one login with both."},
    {"title": "Recording maternity leave", "tags": ["absence", "how-to"],
     "body": "How do I put maternity leave on the roster so it doesn't count against her hours?",
     "reply": "Use Absence > Maternity leave with the start and expected return dates. Her contracted hours are "
              "paused for the period."},
    {"title": "Return to work form", "tags": ["sickness", "feature-request"],
     "body": "Would be great if we could do the return to work interview form in Rotawell after sickness instead of "
             "on paper."},
    {"title": "Welsh language", "tags": ["language", "question"],
     "body": "Is Rotawell available in Welsh? Some of our staff would prefer it.",
     "reply": "The website is available in Welsh (Profile > Language). The app follows in a release later this "
              "year."},
    {"title": "Changing to 4-weekly pay periods", "tags": ["payroll-export", "settings"],
     "body": "Our bank is moving from weekly to 4-weekly pay. What do we need to change?",
     "reply": "That's a configuration change on our side; I've booked a call with your e-roster lead to agree the "
              "first period date."},
    {"title": "Review meeting", "tags": ["account"],
     "body": "Could we have a review meeting with our account manager? We'd like to talk about rolling out to the "
             "community teams."},
    {"title": "Uploading references for bank staff", "tags": ["bank", "documents"],
     "body": "Where do we keep references for new bank workers? At the moment they're in a shared drive.",
     "reply": "On the worker's profile under Documents; you can set who can see each document type."},
    {"title": "Self-rostering", "tags": ["rota", "self-rostering"],
     "body": "We'd like to pilot self-rostering on {ward}. Is it something we can switch on ourselves?",
     "reply": "Yes, on the unit's settings under Roster > Self-rostering. Staff then pick shifts within your "
              "template during the window you set."},
    {"title": "Reminder to publish rotas", "tags": ["publishing", "settings"],
     "body": "We're meant to publish 6 weeks ahead. Can Rotawell remind ward managers before the deadline?",
     "reply": "Yes: Settings > Publishing > Reminders sends the ward manager an email and app alert at the interval "
              "you choose."},
    {"title": "Lost phone", "tags": ["security", "mobile-app"],
     "body": "One of my nurses lost her phone on the bus. Can we sign her out of the app remotely?",
     "reply": "Yes, from her profile > Devices > Sign out all devices. She signs in again on her new phone."},
    {"title": "Bank staff without a trust email", "tags": ["login", "bank"],
     "body": "Some of our bank-only staff don't have a trust Microsoft account. How do they log in?",
     "reply": "They use email and password sign-in. Invite them with their personal email and they set a password "
              "from the invitation."},
    {"title": "How long are old rotas kept", "tags": ["data", "question"],
     "body": "Our information governance team want to know how long you keep rotas and timesheets.",
     "reply": "Rosters and timesheets are kept for 8 years by default, in line with NHS records guidance. You can "
              "ask us for a shorter period."},
    {"title": "Can HCAs swap with RNs", "tags": ["shift-swaps", "question"],
     "body": "One of my HCAs tried to swap with a staff nurse and the app wouldn't let her. Is that a setting?",
     "reply": "Yes, swaps are only allowed between staff of the same skill group by default, so the skill mix on the "
              "shift stays the same. You can change it under Settings > Swaps, but we don't recommend it."},
    {"title": "Christmas leave fairness", "tags": ["annual-leave", "feature-request"],
     "body": "Every year we have arguments about who gets Christmas off. Could Rotawell do some kind of rotation or "
             "lottery for it?"},
    {"title": "Changing our learning system", "tags": ["e-learning", "integration"],
     "body": "We're moving to a new e-learning provider in {month}. What do you need from us to keep the compliance "
             "feed working?",
     "reply": "We'll need a sample export from the new system and a few days' notice; a new connector is set up in "
              "parallel so there's no gap."},
    {"title": "Overtime report per person", "tags": ["reports"],
     "body": "Is there a report of extra hours and bank hours per person, so we can check nobody is doing too much?",
     "reply": "Reports > Hours > Hours worked by person, with substantive, extra and bank hours in separate "
              "columns."},
    {"title": "Moving a nurse to another ward", "tags": ["profiles", "how-to"],
     "body": "{nurse} is moving from {ward} to another ward next month. How do I transfer her without losing her "
             "leave?",
     "reply": "Change her home unit on her profile with an effective date. Her leave balance and requests move with "
              "her."},
    {"title": "F1 rota template for August", "tags": ["medical-rota", "doctors"],
     "body": "The new F1s start in August. Can we reuse last year's rota template or do we have to build it again?",
     "reply": "You can reuse it: open the template, choose Save as new, set the new start date, and assign the "
              "doctors to the lines."},
    {"title": "Nurse can't see next month's rota", "tags": ["rota", "question"],
     "body": "my staff keep asking why they cant see next month yet. is it broken?",
     "reply": "Staff only see rosters once they're published. Next month's is still a draft for your ward."},
]

ARTICLES = {
    "rosters-and-swaps": {
        "title": "Building, publishing and swapping on rosters",
        "intro": "A roster covers one roster period, usually four weeks, for one unit. Ward managers and rota "
                 "coordinators build it as a draft, publish it for staff to see, and manage changes and swaps "
                 "after that.",
        "sections": [
            ("Roster periods and drafts", "Each unit has roster periods, usually four weeks long. A new period "
             "starts as a draft that only managers can see. Saving your changes keeps them in the draft. Staff see "
             "nothing from the draft until you publish it, so if staff say they can't see next month's rota or "
             "their app doesn't show a change you made, check whether the period has been published since."),
            ("Shift patterns and roll forward", "Shift patterns repeat a fixed sequence of shifts, for example a "
             "rolling five-week pattern of long days and nights. Roll forward creates the next period from the "
             "pattern, and Copy week copies a single week. Running Copy week twice on the same week creates every "
             "shift twice. Rota > Tools > Find duplicate shifts lists exact duplicates so you can remove them. "
             "Medical rotas use the same tools; see On-call and medical rotas."),
            ("Publishing and republishing", "Publishing makes the period visible in the app and sends staff a "
             "notification. You can edit a published roster and publish it again; staff whose shifts change are "
             "notified of each change. Check the roster after republishing: swaps approved since the last "
             "publish should still be in place. If approved swaps have gone back to the original shifts after a "
             "republish, contact support with the roster period, and approve swaps on the web roster meanwhile."),
            ("Staff requests", "While a period's request window is open, staff can request days off, particular "
             "shifts or no nights from the app. The ward manager sets when the window opens and closes and how "
             "many requests each person can make. Requests are shown on the draft so you can take them into "
             "account."),
            ("Shift swaps", "Staff can ask to swap a shift with a colleague in the app. Once the colleague "
             "accepts, the swap goes to the ward manager for approval, and both rotas change when it's approved. "
             "Swaps are only allowed between staff of the same skill group by default, so the skill mix on the "
             "shift stays the same. A swap between two wards needs approving by both ward managers; until the "
             "second approval it shows as Pending."),
            ("When a swap doesn't show on the roster", "Open Requests > Swaps and check the swap's status. Pending "
             "means an approval is still missing, often from the other ward's manager. If it says Approved but "
             "the roster shows the original shifts, look at the roster's audit for a republish after the "
             "approval date and contact support. Staff who read the rota on the app should pull down to refresh "
             "before relying on it."),
        ],
    },
    "bank-and-agency-shifts": {
        "title": "Bank and agency shifts",
        "intro": "Unfilled shifts can be offered to your staff bank first and then released to agencies in tiers. "
                 "This article explains who is offered a shift, how the cascade to agency works, and how bank "
                 "shifts are paid.",
        "sections": [
            ("Sending a shift to bank", "A shift becomes a vacancy when a ward raises a need, or when someone on "
             "the roster is marked sick or on leave. Vacancies are released to bank automatically if the unit has "
             "Auto-release switched on (Bank settings > Auto-release); otherwise they wait on the roster as open "
             "shifts until someone clicks Send to bank. Sickness recorded on the roster should always create a "
             "vacancy; if it doesn't, check the unfilled shifts list and contact support."),
            ("Who is offered a bank shift", "A bank shift is offered to bank workers who are in that ward's bank "
             "pool, have the right grade and skills, and are compliant with mandatory training. A worker who never "
             "sees shifts for one ward is usually not in its pool: the bank office can add wards on the worker's "
             "profile under Bank > Wards I work on. Offers are sent as app notifications, and by text or email if "
             "the worker has turned those on."),
            ("The cascade to agency", "Each shift stays bank-only for the bank window set in Bank settings > "
             "Cascade rules (48 hours by default). The window starts when the shift is released to bank, not when "
             "it was created. When it ends, unfilled shifts are released to your agency tiers in order. A unit can "
             "have its own rule that overrides the trust default, and a manager can tick 'Urgent: release to "
             "agency now' on a request to skip the bank window. Turn on 'Hold for bank office approval' if you "
             "want nothing released to agency automatically."),
            ("Bank pay rates", "Bank shifts are priced from the bank rate card, which is separate from the "
             "substantive rate card. Pay awards are applied to both; after an award, check that the rate shown on "
             "new bank shifts has changed. A worker's bank grade is kept on their bank profile and isn't updated "
             "automatically when their substantive band changes, so update it after a promotion."),
            ("Enhancements on bank shifts", "Bank terms decide whether bank shifts carry unsocial hours "
             "enhancements. On standard terms, Saturday, Sunday, night and bank holiday hours are enhanced the "
             "same way as for substantive staff. Flat-rate bank terms pay one all-inclusive hourly rate with no "
             "enhancements on any day. The pay breakdown on each bank timesheet shows which enhancement was "
             "applied to each hour."),
        ],
    },
    "annual-and-study-leave": {
        "title": "Annual leave and study leave",
        "sections": [
            ("Leave entitlement in hours", "Most trusts record annual leave in hours. Booking leave over a shift "
             "deducts the length of that shift: 11.5 hours for a long day, 7.5 for an early. Entitlements are "
             "pro-rated from each person's contracted hours and start date, so part-timers and new starters don't "
             "need manual calculation."),
            ("Booking leave over night shifts", "A night shift crosses midnight but is one shift, so leave over a "
             "night should deduct the rostered night once. When you request leave for nights, check that the "
             "number of shifts on the request matches the nights you want off. If the request counts each night "
             "twice, or night staff's balances drop by twice what you expect, book with the 'Shift-based' option "
             "and contact support so the balances can be recalculated."),
            ("Carry-over and the leave year", "At the start of each leave year, unused leave is carried over up to "
             "your trust's cap, set under Settings > Leave > Carry-over. Anything above the cap is lost at the "
             "rollover. Staff who think hours are missing at the start of the year have usually hit the cap."),
            ("Requesting study leave", "Doctors request study leave in the app or on the web, with the course, "
             "dates and expected costs. A request goes first to the doctor's educational supervisor and then to "
             "medical staffing. A request shows Pending until both have approved it, so a long wait is usually "
             "the supervisor's step."),
            ("Study leave budgets", "Each doctor has a yearly study leave budget set by grade. It's renewed every "
             "year at the budget rollover. Requests with costs above the remaining budget are declined "
             "automatically; requests without costs aren't affected. If a doctor shows a £0 budget they haven't "
             "spent, for example after changing grade at the August rotation, ask support to check the rollover. "
             "Medical staffing can reopen declined requests from Leave > Study leave > Declined."),
        ],
    },
    "timesheets-and-payroll-export": {
        "title": "Timesheets and the payroll export",
        "intro": "Worked shifts become timesheets, which managers approve. Approved timesheets go to payroll in "
                 "the payroll export for the pay period.",
        "sections": [
            ("Approving timesheets", "Timesheets are created from the roster and clock-in punches. The ward "
             "manager checks the times and approves each timesheet on the web or in the manager app. Every "
             "approval records who approved it, which payroll needs. If timesheets show as approved but the "
             "'Approved by' column is empty, they won't be exported: contact support rather than approving them "
             "again."),
            ("Breaks and missed punches", "Unpaid breaks are deducted according to your break rules (Settings > "
             "Pay rules > Breaks), for example 60 minutes on a night shift. If someone didn't get their break, "
             "tick 'Break not taken' on the timesheet. When a clock-out is missing, the timesheet closes at the "
             "rostered end time; amend the finish time with the reason 'Missed punch' and approve it."),
            ("Pay period cut-off", "Each pay period has a cut-off date. Timesheets approved after it go into the "
             "next period's export, so late approvals are paid a month (or week) later. Night shifts that cross "
             "midnight at the end of a period are split: hours before midnight belong to the closing period and "
             "hours after midnight to the next. Compare the export with the timesheets for those nights if staff "
             "report missing hours."),
            ("Why a timesheet isn't in the export", "The export report lists every timesheet it skipped and why. "
             "Common reasons: the timesheet isn't approved, it has no authorising manager, it was approved after "
             "the cut-off, or the worker has no payroll assignment number on their profile (usual for new bank "
             "workers whom payroll hasn't set up yet). Fix the reason and the timesheet goes in the next export, "
             "or ask support for a supplementary export."),
            ("Enhancements and unsocial hours", "Enhancements are calculated hour by hour from your enhancement "
             "rules: nights, Saturdays, Sundays and bank holidays each have their own rate. The pay breakdown on "
             "a timesheet shows which rate applied to each hour, and the export sends each rate as its own pay "
             "code. If a whole category of hours, such as Saturdays for bank staff, is suddenly paid at plain "
             "time, contact support with an example timesheet."),
        ],
    },
    "clock-in-terminals": {
        "title": "Clock-in terminals",
        "sections": [
            ("How clocking in works", "Staff tap their ID badge on a terminal at the start and end of a shift. The "
             "terminal shows 'Welcome' or 'Goodbye' with their name, and the punch appears on their timesheet "
             "within a minute. Punches are matched to the rostered shift, so clocking in early or late shows on "
             "the lateness report."),
            ("When a terminal is offline", "If a terminal loses its network connection, it shows a cloud icon with "
             "a cross and keeps working: punches are stored on the terminal and uploaded when it reconnects. Each "
             "punch keeps the time it was made. If punches from an outage all show the same time, or staff who "
             "clocked during an outage show as late, don't edit the timesheets by hand; contact support, as the "
             "original times can be restored from the terminal's log."),
            ("Terminal time and time zone", "Terminals take their time from our servers and their time zone from "
             "the terminal settings. A terminal set up with the wrong time zone records every punch an hour (or "
             "more) out, consistently. Check Terminals > Devices > Time zone; punches already recorded can be "
             "corrected in bulk under Terminals > Corrections."),
            ("Badges", "Each badge is linked to one person. When someone gets a replacement badge, link the new "
             "badge number on their profile under Clocking > Badges, or their taps will show 'Badge not "
             "recognised'. Unlink badges when staff leave."),
            ("Firmware updates and replacements", "Terminal firmware is updated automatically overnight. The "
             "firmware version is shown under Terminals > Devices. If a terminal is damaged, raise a replacement "
             "with support; a pre-configured terminal is sent within three working days."),
        ],
    },
    "rotawell-app": {
        "title": "The Rotawell app",
        "intro": "Staff use the Rotawell app on iPhone and Android to see their rota, book bank shifts, request "
                 "leave and swaps, and get notifications.",
        "sections": [
            ("Installing and signing in", "Download Rotawell from the App Store or Google Play. Staff at trusts "
             "with Microsoft sign-in tap 'Sign in with Microsoft' and use their trust account; others sign in with "
             "the email and password from their invitation. Keep the app up to date, as older versions stop being "
             "supported."),
            ("Notifications", "The app notifies staff when a rota is published or changed, a swap or leave request "
             "is decided, and a bank shift they can work is offered. If notifications stop arriving, first sign "
             "out (Profile > Sign out) and sign in again, which registers the phone afresh. On Android, battery "
             "saving can hold notifications until the app is opened: set the app's battery use to Unrestricted "
             "in the phone's settings. Staff can choose push, text or email under Profile > Notifications."),
            ("Reading your rota in the app", "My shifts shows your shifts in a week view or a list. The week view "
             "starts on Monday. Tap a shift to see its full date, times and ward. If the week view puts shifts "
             "on a different day from the ward rota, check the date in the shift details, use the list view, and "
             "update the app; the phone's region setting (Settings > General > Language & Region) can affect how "
             "the week is laid out."),
            ("Offline mode", "When the phone has no connection, the app shows the copy saved at its last sync, with "
             "an 'Offline, last updated' banner at the top. Changes made since then won't show until the phone is "
             "back online. Pull down on My shifts to refresh."),
            ("Booking bank shifts", "Open Bank to see shifts you can work, with the ward, times and hourly rate. "
             "Tap Book to take a shift; it's confirmed straight away or after bank office approval, depending on "
             "your trust. If booking is blocked, the app says why, for example out-of-date mandatory training."),
        ],
    },
    "signing-in-with-microsoft": {
        "title": "Signing in with Microsoft",
        "intro": "Most trusts sign in to Rotawell with their Microsoft (nhs.net or trust) account. The sign-in "
                 "happens on Microsoft's page, so many errors come from Microsoft and start with AADSTS.",
        "sections": [
            ("How Microsoft sign-in works", "When someone taps 'Sign in with Microsoft', Rotawell sends them to "
             "Microsoft, which checks their account and your trust's policies and sends them back to Rotawell. "
             "Rotawell then matches the account's email to a staff profile. Your trust's IT team manages the "
             "Microsoft side; Rotawell support manages the Rotawell side."),
            ("Using the right account", "Staff must choose their trust account, not a personal Microsoft account "
             "such as a hotmail or outlook.com address. A personal account gives AADSTS50020 ('User account from "
             "identity provider live.com does not exist in tenant'). On the Microsoft page, choose 'Use another "
             "account' and enter the trust email address."),
            ("Errors from your trust's own policies", "Your IT team can restrict sign-in with Conditional Access, "
             "for example to managed devices only. AADSTS53003 ('Access has been blocked by Conditional Access "
             "policies') and AADSTS53000 (device not compliant) come from those policies, before Rotawell is "
             "involved. Only your IT team can change them, for example by excluding the Rotawell app or allowing "
             "personal phones."),
            ("Errors after an app update", "AADSTS50011 means the address Rotawell asked Microsoft to return to "
             "isn't registered for the Rotawell application. It isn't caused by your tenant's settings or the "
             "user's password. If it appears on one kind of phone after an app update, contact Rotawell support; "
             "meanwhile staff can sign in on the Rotawell website in their phone's browser."),
            ("Staff without a trust account", "Bank-only workers and others without a trust Microsoft account sign "
             "in with email and password. Invite them with their personal email address; they set a password "
             "from the invitation. Password sign-in is unaffected by Microsoft sign-in problems."),
        ],
    },
    "training-compliance": {
        "title": "Mandatory training and compliance",
        "sections": [
            ("How training records reach Rotawell", "Your e-learning system (LMS) sends a file of course "
             "completions, usually every night. Rotawell imports it and updates each person's Compliance tab with "
             "the completion and expiry dates of every required course. The import log (Settings > Compliance > "
             "Import log) shows each file and any rows it couldn't read."),
            ("When training is out of date", "Staff whose required training has expired are flagged red on the "
             "roster and can't book bank shifts. Managers can still roster them, with a warning, and a matron can "
             "authorise a one-off override. The block lifts as soon as an in-date completion is imported or "
             "entered."),
            ("Training completed but still flagged", "First check the level and course: some roles need a higher "
             "level, for example Safeguarding Adults Level 3 rather than Level 2. Then check the import log: if "
             "no file has arrived for several days, your LMS has stopped sending and your LMS team needs to re-run "
             "its export. If files arrive but rows show warnings such as 'invalid completion date', contact "
             "support. Meanwhile a manager can enter the completion date on the person's Compliance tab, which "
             "lifts the block straight away."),
            ("Compliance reports", "Reports > Compliance shows the percentage of staff in date for each course, by "
             "ward and staff group. A sudden jump in non-compliance with no change in training activity usually "
             "means completions aren't being imported; check the import log."),
        ],
    },
    "staffing-levels-and-alerts": {
        "title": "Staffing levels and safe-staffing alerts",
        "sections": [
            ("Demand templates", "A unit's demand template sets how many staff of each type (registered nurses, "
             "HCAs and so on) are needed on each shift: days and nights usually have different numbers. The "
             "staffing dashboard compares the people rostered on each shift with the template line for that "
             "shift. When beds open or close, update the template under Unit > Demand templates, or switch to an "
             "escalation template."),
            ("Who counts towards staffing", "Staff rostered on a shift count towards its numbers, except "
             "supernumerary staff (for example new starters on induction) and students. Staff marked sick or on "
             "leave stop counting, and their shift becomes a vacancy."),
            ("Safe-staffing alerts", "When a shift falls below the template's minimum, the dashboard turns red and "
             "an alert goes to the ward manager, matron and site team, by email and in the app. You can mute "
             "alerts for a shift type on a ward from its demand template page. If a ward shows red every night "
             "while staffed to its night numbers, check which required numbers the dashboard shows for nights "
             "and contact support."),
            ("Safe staffing reports", "Reports > Safe staffing gives fill rates and care hours per patient day by "
             "ward and shift, for board reports and national returns. If the numbers were wrong for a period, "
             "the report can be rebuilt from Reports > Safe staffing > Rebuild after the cause is fixed."),
        ],
    },
    "on-call-and-medical-rotas": {
        "title": "On-call and medical rotas",
        "sections": [
            ("Medical rota templates", "Doctors' rotas are built from a rota template with one line per doctor, "
             "covering normal days, long days, nights and on-call. For a new intake, such as F1s at the August "
             "changeover, open last year's template, choose Save as new, set the start date and assign the "
             "doctors to lines."),
            ("On-call shifts and the on-call list", "On-call shifts appear on the rota like other shifts and feed "
             "the on-call list that switchboard sees. Give switchboard the On-call viewer role so they can see "
             "today's list for every specialty without editing. If the list shows two people for the same slot, "
             "look for duplicate on-call shifts on the rota."),
            ("Rolling a medical rota forward", "Roll forward creates the next period's shifts from the template. "
             "After rolling forward, check the weeks around the month change, and run Rota > Tools > Find "
             "duplicate shifts if any shift appears twice. Rolling forward one month at a time makes checking "
             "easier."),
            ("Working hours checks", "The rota checker warns when a doctor is rostered over 72 hours in any 7 days, "
             "over 48 hours average, or too many consecutive long shifts or nights. It counts every shift the "
             "doctor works, including locum bank shifts booked on top of their rota, so check for extra shifts "
             "before assuming the warning is wrong."),
        ],
    },
}

QUERIES = [
    {"q": "how do I publish the rota so staff can see it", "answers": ["rosters-and-swaps#1", "rosters-and-swaps#3"],
     "kind": "task"},
    {"q": "staff say their app still shows the old shifts after I changed the rota",
     "answers": ["rosters-and-swaps#1", "rosters-and-swaps#3"], "kind": "symptom"},
    {"q": "approved swap went back to the original shifts", "answers": ["rosters-and-swaps#6",
                                                                         "rosters-and-swaps#3"],
     "kind": "symptom"},
    {"q": "swap with another ward still pending", "answers": ["rosters-and-swaps#5", "rosters-and-swaps#6"],
     "kind": "plain"},
    {"q": "can an HCA swap a shift with a staff nurse", "answers": ["rosters-and-swaps#5"], "kind": "plain"},
    {"q": "shifts going to agency before bank staff get a look", "answers": ["bank-and-agency-shifts#3"],
     "kind": "paraphrase"},
    {"q": "bank cascade window", "answers": ["bank-and-agency-shifts#3"], "kind": "terse"},
    {"q": "bank nurse never gets offered shifts on our ward", "answers": ["bank-and-agency-shifts#2"],
     "kind": "symptom"},
    {"q": "sickness cover not sent to bank office", "answers": ["bank-and-agency-shifts#1"], "kind": "symptom"},
    {"q": "bank rates still last year after pay award", "answers": ["bank-and-agency-shifts#4"], "kind": "paraphrase"},
    {"q": "no saturday enhancment on bank shifts", "answers": ["bank-and-agency-shifts#5",
                                                               "timesheets-and-payroll-export#5"],
     "kind": "typo"},
    {"q": "booked 3 nights annual leave and it took 6 shifts off my balance",
     "answers": ["annual-and-study-leave#2", "annual-and-study-leave#1"], "kind": "symptom"},
    {"q": "why did one long day take 11.5 hours of AL", "answers": ["annual-and-study-leave#1"], "kind": "plain"},
    {"q": "leave hours missing after new leave year", "answers": ["annual-and-study-leave#3"], "kind": "paraphrase"},
    {"q": "study leave declined automatically says no budget",
     "answers": ["annual-and-study-leave#5", "annual-and-study-leave#4"], "kind": "symptom"},
    {"q": "night shift paid only 11 hours", "answers": ["timesheets-and-payroll-export#2"], "kind": "symptom"},
    {"q": "hours after midnight missing on last night of the month",
     "answers": ["timesheets-and-payroll-export#3"], "kind": "symptom"},
    {"q": "timesheets approved but payroll didnt get them",
     "answers": ["timesheets-and-payroll-export#4", "timesheets-and-payroll-export#1"], "kind": "typo"},
    {"q": "new bank worker not paid", "answers": ["timesheets-and-payroll-export#4"], "kind": "terse"},
    {"q": "staff forgot to clock out", "answers": ["timesheets-and-payroll-export#2", "clock-in-terminals#1"],
     "kind": "task"},
    {"q": "everyone clocked in at the same time after the wifi went down",
     "answers": ["clock-in-terminals#2"], "kind": "symptom"},
    {"q": "terminal an hour out", "answers": ["clock-in-terminals#3"], "kind": "terse"},
    {"q": "not getting shift notifications on android", "answers": ["rotawell-app#2"], "kind": "plain"},
    {"q": "app shows my shifts a day early compared to the ward rota", "answers": ["rotawell-app#3"],
     "kind": "paraphrase"},
    {"q": "AADSTS50011", "answers": ["signing-in-with-microsoft#4"], "kind": "idp"},
    {"q": "access has been blocked by conditional access policies on personal phones",
     "answers": ["signing-in-with-microsoft#3"], "kind": "idp"},
    {"q": "says my account does not exist in tenant live.com", "answers": ["signing-in-with-microsoft#2"],
     "kind": "idp"},
    {"q": "how do bank staff with no nhs email log in", "answers": ["signing-in-with-microsoft#5"], "kind": "task"},
    {"q": "did my training but still cant book bank", "answers": ["training-compliance#3",
                                                                  "training-compliance#2"],
     "kind": "typo"},
    {"q": "red flags on the rota next to staff names", "answers": ["training-compliance#2"], "kind": "paraphrase"},
    {"q": "staffing dashboard red every night even though we have our numbers",
     "answers": ["staffing-levels-and-alerts#3", "staffing-levels-and-alerts#1"], "kind": "symptom"},
    {"q": "does a supernumerary new starter count in the numbers", "answers": ["staffing-levels-and-alerts#2"],
     "kind": "plain"},
    {"q": "switchboard access to on call list", "answers": ["on-call-and-medical-rotas#2"], "kind": "task"},
    {"q": "Hi, I'm the rota coordinator for medicine. Every time I roll the registrar rota forward, a few nights "
          "near the end of the month come out with the on-call in twice, and then the checker says the doctor is "
          "over 72 hours. Is there a way to find and get rid of the doubles without going through it by hand?",
     "answers": ["on-call-and-medical-rotas#3", "on-call-and-medical-rotas#4"], "kind": "long"},
    {"q": "Since last week about a third of my staff are showing red for training on the roster and the bank "
          "office won't book them. I've checked a few on the e-learning site and they've all done it. The import "
          "log has loads of warnings about dates. What do I do, and can I unblock them in the meantime?",
     "answers": ["training-compliance#3", "training-compliance#1"], "kind": "long"},
]
