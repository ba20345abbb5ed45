"""Payfern: payroll and HR for small and mid-sized UK and Irish employers (tuning desk).

Writers are payroll administrators, HR managers, finance leads and the odd employee forwarded by them: plain
business English, mostly medium length, few typos. Areas: pay runs, PAYE tax codes and tax tables, pensions
auto-enrolment, BACS payment files, holiday and leave, timesheets and overtime, expenses, year-end P60s,
onboarding documents, the employee self-service portal and its Microsoft sign-in.
"""

PRODUCT = "Payfern"

STYLE = {
    "lengths": {"oneline": 0.1, "short": 0.3, "medium": 0.4, "long": 0.2},
    "greeting": 0.75,
    "signoff": 0.75,
    "typo_rate": 0.01,
    "careless": 0.35,
    "no_apostrophes": 0.08,
    "hours": (7, 19),
}

STAFF = [("priya", "Priya Raman"), ("callum", "Callum Reid"), ("joanna", "Joanna Pietrzak"),
         ("malik", "Malik Osei")]

CUSTOMERS = [
    {"name": "Brightwater Dental Group", "plan": "Growth", "seats": 86, "region": "UK", "contact": "Helen Marsh",
     "sso": "Microsoft", "writers": ["Owen Pritchard"],
     "notes": "Eleven dental practices across Wales and the West; Helen runs payroll monthly on the 28th. "
              "Account opened 2023; uses the NEST pension connector."},
    {"name": "Okafor Builders", "plan": "Starter", "seats": 24, "region": "UK", "contact": "Chinedu Okafor",
     "sso": None, "writers": ["Grace Okafor"],
     "notes": "Family construction firm, weekly pay for site staff and monthly for office. Grace does the "
              "books two days a week."},
    {"name": "Lumen Coffee Roasters", "plan": "Starter", "seats": 31, "region": "UK", "contact": "Tess Holloway",
     "sso": None,
     "notes": "Roastery plus four cafes in Bristol; lots of part-time and hourly baristas on timesheets."},
    {"name": "Haverford Legal", "plan": "Growth", "seats": 64, "region": "UK", "contact": "Martin Cole",
     "sso": "Microsoft", "writers": ["Ayesha Rahman"],
     "notes": "Law firm, monthly payroll, salary sacrifice pension scheme. Very particular about P60 and P11D "
              "accuracy; Ayesha is the HR manager."},
    {"name": "Tidewell Care Homes", "plan": "Enterprise", "seats": 410, "region": "UK", "contact": "Sandra Achebe",
     "sso": "Microsoft", "writers": ["Kevin Doyle", "Lorraine Platt"],
     "notes": "Six residential care homes; carers on variable hours and overtime, weekly and monthly payrolls. "
              "Account created January 2022, migrated to timesheets in 2025."},
    {"name": "Northgate Logistics", "plan": "Enterprise", "seats": 275, "region": "UK", "contact": "Phil Jarvis",
     "sso": "Microsoft", "writers": ["Dominika Nowak"],
     "notes": "Warehousing and haulage, two depots. Drivers claim expenses in EUR on continental runs."},
    {"name": "Pimlico Bakehouse", "plan": "Starter", "seats": 12, "region": "UK", "contact": "Rosa Bianchi",
     "sso": None, "notes": "Small bakery, owner runs payroll herself on the last Friday of the month."},
    {"name": "Sable Analytics", "plan": "Growth", "seats": 58, "region": "IE", "contact": "Niamh Gallagher",
     "sso": "Google", "writers": ["Declan Byrne"],
     "notes": "Data consultancy in Dublin with a small UK subsidiary; staff travel a lot and claim expenses "
              "in USD and EUR."},
    {"name": "Greenhollow Schools Trust", "plan": "Enterprise", "seats": 530, "region": "UK",
     "contact": "Margaret Ellison", "sso": "Microsoft", "writers": ["Ravi Chandran"],
     "notes": "Multi-academy trust, five schools. Term-time only support staff with custom working patterns. "
              "Account created 2021."},
    {"name": "Marlowe Hotels", "plan": "Growth", "seats": 190, "region": "UK", "contact": "Gavin Firth",
     "sso": None, "writers": ["Elena Popescu"],
     "notes": "Three boutique hotels; high staff turnover, heavy use of onboarding documents and e-signing."},
    {"name": "Quarry Lane Engineering", "plan": "Growth", "seats": 97, "region": "UK", "contact": "Ian Thorpe",
     "sso": "Microsoft",
     "notes": "Precision engineering, shift workers on timesheets with overtime at 1.5x and 2x."},
    {"name": "Fjord Retail", "plan": "Growth", "seats": 140, "region": "IE", "contact": "Siobhan Kearney",
     "sso": "Google", "writers": ["Aoife Walsh"],
     "notes": "Homeware shops in Ireland and Northern Ireland. Joined in May 2026, so their account is new."},
    {"name": "Kestrel Veterinary", "plan": "Starter", "seats": 19, "region": "UK", "contact": "Jonathan Price",
     "sso": None, "notes": "Two vet practices; practice manager runs payroll and HR."},
    {"name": "Arden Housing Association", "plan": "Enterprise", "seats": 360, "region": "UK",
     "contact": "Beverley Shaw", "sso": "Microsoft", "writers": ["Tom Adeyemi"],
     "notes": "Housing association; recent restructure moved 60 staff to new managers in August."},
]

SLOTS = {
    "employee": ["Sophie Turner", "James Whitaker", "Amira Hassan", "Liam O'Connor", "Priti Desai",
                 "Daniel Evans", "Megan Lloyd", "Tomasz Zielinski", "Chloe Barnes", "Aaron Blake"],
    "month": ["August", "September", "October"],
    "bank": ["Barclays", "Lloyds", "NatWest", "HSBC", "Santander"],
    "pension": ["NEST", "The People's Pension", "Aviva", "Royal London"],
    "site": ["the Cardiff office", "head office", "the Leeds depot", "our second site", "the Swindon branch"],
    "currency": ["EUR", "USD"],
}

GREETINGS = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Hello Payfern team,", "Hi {staff},", "Dear Support,",
             "Afternoon,"]
SIGNOFFS = ["Thanks,\n{first}", "Kind regards,\n{name}\n{company}", "Many thanks, {first}", "Best,\n{name}",
            "Regards,\n{name} | Payroll | {company}", "Thanks in advance\n{first}"]
CONTEXT = [
    "We run payroll on the 28th so I need to get this sorted before then.",
    "Our finance director has asked me to look into it before the month-end close.",
    "For context, we have about {nn} employees on this payroll.",
    "I'm covering for our usual payroll administrator who is on annual leave this week.",
    "We've been with Payfern for a couple of years and haven't seen this before.",
    "Our accountant spotted it while reconciling the journal.",
    "This is for the monthly payroll, not the weekly one.",
    "I've only just taken over payroll here so apologies if I'm missing something obvious.",
    "We're in the middle of moving offices so I'm working from my laptop at home.",
    "Two of our managers have already raised it with me today.",
]
TRIED = [
    "I've logged out and back in and tried a different browser.",
    "I checked the employee records and nothing has been changed on our side.",
    "I've rolled the draft back once and recalculated, same result.",
    "I looked through the help centre but couldn't find anything that matches.",
    "Our IT team say nothing has changed at their end.",
]
ASKS = ["Can you take a look?", "Could you advise what we need to do?", "Please can someone look into this urgently.",
        "Is this something on your side?", "What's the best way to fix this before the next run?",
        "Let me know if you need anything else from me.", "Can you tell me whether it's safe to submit?"]
ERROR_INTROS = ["The message says: \"{error}\"", "We're getting this: {error}", "Error shown: \"{error}\"",
                "In the audit log it says \"{error}\".", "Screenshot attached, the wording is \"{error}\"."]
FOLLOWUP_WAIT = ["Hi, any update on this? Pay day is getting close.", "Chasing this one please.",
                 "Just following up, we still have the same problem.",
                 "Is anyone looking at this? I need an answer before we submit the FPS."]
FOLLOWUP_THANKS = ["That's worked, thank you.", "Great, all looks correct now. Thanks {staff}.",
                   "Thanks, I've recalculated and the figures match.", "Perfect, thanks for the quick help.",
                   "Thank you, I'll let the team know."]
REPLY_INFO = ["Screenshot attached.", "It's the monthly payroll for {month}.",
              "I've added you as a support user on our account so you can have a look.",
              "The employee is {employee}, payroll number {num}.", "Happy for you to look at the draft run."]

STAFF_OPENERS = ["Hi {first},", "Hello {first}, thanks for getting in touch.", "Hi {first}, thanks for the detail.",
                 "Hi {first}, sorry for the trouble with this."]
STAFF_SIGNOFFS = ["Best,\n{staff}", "Kind regards,\n{staff} | Payfern Support", "Thanks,\n{staff}", ""]
STAFF_ASKS = [
    "Could you tell me which pay run this is (the pay period and frequency) and one affected employee?",
    "Could you send a screenshot of the payslip, with the employee's name blurred if you prefer?",
    "Would you be happy for us to access your account to look at the draft run?",
    "Is this affecting everyone on the payroll or only some employees?",
]
STAFF_HOLDING = [
    "Thanks for flagging this. I've passed it to our payroll engineering team and I'll update you as soon as "
    "I hear back. Please don't submit the run until then.",
    "We're looking into this now and will come back to you today.",
    "I can see the same thing on your account. I've escalated it internally and will keep you posted.",
]
INTERNAL_GENERIC = ["Asked for the pay run ID and an example employee.", "Customer granted support access.",
                    "Checked account settings, nothing obvious. Waiting on screenshots."]
TAG_EXTRAS = ["bug", "question", "escalated", "payday-risk", "how-to"]
VAGUE_TITLES = ["Payroll problem", "Urgent - payroll", "Question about this month's run", "Help please",
                "Issue with Payfern"]

CLUSTERS = [
    {
        "key": "stale-tax-tables",
        "cause": "The tax-year tax table update job failed for companies created before March 2026: their pay "
                 "runs still calculate PAYE with last year's thresholds",
        "tags": ["payslips", "tax", "pay-run"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Everyone's income tax looks slightly off this month", "Net pay higher than expected for all staff",
                   "Tax deductions don't match HMRC calculator", "Payslips using wrong tax figures?",
                   "PAYE on draft run looks like last year's"],
        "symptoms": [
            "The income tax on this month's draft run is a few pounds lower for pretty much every employee "
            "compared with what the HMRC calculator gives us. Tax codes are all correct (mostly 1257L).",
            "Several staff have asked why their take-home pay went up slightly this month when nothing changed in "
            "their salary. I checked and the PAYE deducted is lower than I'd expect for their code.",
            "Our accountant re-ran a few payslips in her own software and the tax is different on every one of "
            "them. The difference is small but it's consistent across the whole payroll.",
            "The payroll summary shows total PAYE for {month} down by around £{amount} even though gross pay is "
            "basically the same as last month.",
            "The tax bands on the payslip breakdown look like the old ones. The higher rate seems to kick in at "
            "a different point than the current year's threshold.",
            "Our sister company's payroll, which we set up on Payfern in the summer, calculates tax correctly, but "
            "our main company's run is out on every employee.",
            "I compared a payslip from {month} with the same employee's payslip from the spring and the tax "
            "calculation looks identical to last tax year's, even though the thresholds changed in April.",
        ],
        "details": [
            "Nothing has been changed on the employee records and codes came through from HMRC as normal.",
            "It is every employee, not just new starters or leavers.",
            "The difference grows for people on higher salaries.",
            "We've had this account since 2024.",
            "The payroll audit page says tax table version 2025.2 which doesn't sound right to me.",
        ],
        "errors": ["Tax table version 2025.2 (expected 2026.1)", "Calculation used tax table 2025.2"],
        "staff_cause": [
            "This is on our side. The job that loads the new tax year's tables failed for companies whose account "
            "was created before March, so your runs have been calculating PAYE with last year's thresholds.",
            "I've confirmed your company is one of the accounts that missed the tax table update at the start of "
            "the tax year: the run is still pointed at the 2025/26 tables, which is why every employee's tax is "
            "slightly out.",
            "Your account never received the current tax year's tables (a failed update for older accounts), so "
            "the calculations use the previous year's bands and thresholds.",
        ],
        "internal": [
            "Another pre-March account on stale tax tables (2025.2). Re-synced tables for this company, see "
            "PAY-3120. Customer needs to recalc the draft.",
            "Tax table job failure again: created-before-March cohort. Confirmed via calc audit. Linked to PAY-3120.",
        ],
        "fixes": [
            "I've re-applied the current tables to your company. Please open the draft run and click Recalculate; "
            "the tax figures should then match the HMRC calculator.",
            "We've fixed the tables on your account. For runs you've already submitted, the under-deduction "
            "corrects itself through the cumulative code in the next period, so you don't need to do anything "
            "extra for those employees.",
        ],
        "asks": ["Could you tell me roughly when your Payfern account was created, and one employee whose tax looks "
                 "wrong?"],
        "near": ["wrong-tax-code-entered", "emergency-code-new-starter"],
    },
    {
        "key": "part-time-accrual",
        "cause": "The contracted-hours migration in release 4.2 reset FTE to 1.0 for employees with custom working "
                 "patterns: their holiday accrues as if they were full time",
        "tags": ["holiday", "leave", "part-time"],
        "priority": ["normal", "high"],
        "titles": ["Part-time staff showing full-time holiday allowance", "Holiday balances jumped overnight",
                   "Leave allowance wrong for our 3-day-a-week staff", "Accrued holiday too high for part-timers",
                   "FTE showing 1.00 for part-time employees"],
        "symptoms": [
            "Our part-time employees are suddenly showing a full 28-day holiday allowance. Someone who works three "
            "days a week should be on about 16.8 days pro rata.",
            "A few staff have emailed me delighted that their holiday balance went up, but it shouldn't have. It "
            "looks like their allowance is being worked out as if they were full time.",
            "The holiday accrual report for the quarter shows the term-time staff accruing at the same rate as "
            "our full-time staff.",
            "A manager approved a week of leave for someone whose balance should only have had two days left. "
            "The system let it through because it thinks she has plenty.",
            "On the employee profile the FTE field now says 1.00 for people who definitely work part time. I'm "
            "sure they showed the right figure before.",
            "Everyone on a custom working pattern seems to have had their holiday recalculated. The people on the "
            "standard Monday to Friday pattern are fine.",
        ],
        "details": [
            "It seems to have changed some time in the last couple of weeks.",
            "Their contracted hours are still right on the contract tab, it's only the allowance that's wrong.",
            "I haven't changed any leave policy settings.",
            "We have about {nn} part-time staff and I'd rather not fix them one by one.",
        ],
        "staff_cause": [
            "Release 4.2 moved contracted hours into the new working pattern model, and for employees with a custom "
            "pattern the migration set their FTE to 1.0. Accrual then treats them as full time.",
            "This was caused by our working-pattern migration: anyone with a custom pattern had their FTE reset to "
            "1.00, so their holiday allowance is being pro-rated as full time.",
        ],
        "internal": ["4.2 FTE reset hit this account (custom patterns). Ran the FTE restore script for them, "
                     "HR-2207.",
                     "Same as the other accrual tickets: custom working pattern -> FTE 1.0 after 4.2 migration."],
        "fixes": [
            "We've restored the FTE values from before the migration and recalculated the balances. Any leave "
            "already approved stays as it is, so you may want to check anyone now showing a negative balance.",
            "Our engineers are running a fix that restores the previous FTE for affected employees; balances will "
            "be recalculated overnight.",
        ],
        "near": ["leave-year-start", "pattern-never-entered"],
    },
    {
        "key": "bacs-date-format",
        "cause": "The 14 September export template update writes the BACS processing date as DD/MM/YYYY instead "
                 "of the Standard 18 YYDDD format: banks reject the payment file",
        "tags": ["bacs", "payments", "bank-file"],
        "priority": ["urgent", "urgent", "high"],
        "titles": ["Bank rejecting our BACS file", "Payment file upload failed at the bank",
                   "Salaries not paid - bank says file format invalid", "BACS export not accepted by {bank}",
                   "Problem with payment file since last update"],
        "symptoms": [
            "Our bank has rejected the payment file we exported from this month's pay run. Last month's upload "
            "went through with no problems.",
            "When I upload the BACS file to {bank} Bankline it fails validation straight away and none of the "
            "payments are created. We had to key the salaries in by hand.",
            "Staff weren't paid this morning. The bank told us the file we sent was invalid and bounced it back. "
            "We haven't changed our bank details or the export settings.",
            "The payment file downloads fine from Payfern but the bank portal complains about the date in the "
            "header record.",
            "I opened the exported file in Notepad and the processing date is written as 26/09/2026, which looks "
            "odd next to the rest of the record.",
        ],
        "details": [
            "We use the Standard 18 format option.",
            "It's every file we export now, including the weekly run.",
            "I tried exporting it again and re-uploading, same result.",
            "Our bureau that submits for us says the same thing.",
        ],
        "errors": ["Invalid processing date in record 1", "Header record HDR2: date field not numeric",
                   "File rejected: invalid processing date"],
        "staff_cause": [
            "Our update to the export templates on 14 September changed how the processing date is written: it now "
            "comes out as DD/MM/YYYY instead of the YYDDD format the banks expect, so the whole file is rejected.",
            "This is a bug on our side in the Standard 18 export: the processing date is in the wrong format since "
            "the template change, and banks reject the file on the first record.",
            "The bank is right to reject it. Since mid-September our BACS export has written the date in the "
            "wrong format, which fails the bank's validation before any payments are read.",
        ],
        "internal": ["BACS date format regression from the 14/09 template release, PAY-3164. Hotfix pending; "
                     "workaround is the legacy template.",
                     "Std18 YYDDD vs DD/MM/YYYY again. Sent legacy export workaround."],
        "fixes": [
            "The fix has been deployed. Please export the file again from the pay run and upload the new one; "
            "there's no need to reopen the run.",
            "Until the fix is out, you can switch the export to 'Standard 18 (legacy template)' under Pay run > "
            "Payments > Export settings, which writes the date correctly.",
        ],
        "near": ["bad-sort-code", "after-cutoff"],
    },
    {
        "key": "dkim-payslip-emails",
        "cause": "Payfern's DKIM key rotation broke signing on payslip notification emails: Microsoft 365 "
                 "mailboxes quarantine them",
        "tags": ["payslips", "email", "self-service"],
        "priority": ["normal", "high"],
        "titles": ["Staff not getting payslip emails", "Payslip ready notifications missing",
                   "Employees say no payslip email this month", "Payslip emails going to quarantine",
                   "Notification emails not arriving"],
        "symptoms": [
            "Quite a few employees say they didn't get the 'your payslip is ready' email this month. The payslips "
            "are there when they log in to the portal.",
            "Our IT manager found the payslip notification emails sitting in our Microsoft 365 quarantine. They "
            "say the message failed authentication.",
            "Staff with personal Gmail addresses got their payslip notification but anyone using their work "
            "Outlook address didn't.",
            "I've had a stream of people asking if payroll has run because they haven't had the usual email. It "
            "has run, the money is in their accounts.",
            "We got a report from our email security tool flagging messages from Payfern as spoofed. They're the "
            "payslip alerts.",
        ],
        "details": [
            "Nothing changed in our email setup that I know of.",
            "It started with this month's run, last month was fine.",
            "The emails from your login page (password resets) seem to arrive fine.",
        ],
        "errors": ["dkim=fail (signature did not verify) header.d=payfern.example",
                   "Quarantined: DMARC policy reject"],
        "staff_cause": [
            "We rotated the signing key for our notification emails last week and the payslip emails were sent with "
            "a signature that doesn't verify. Microsoft 365 treats them as spoofed and quarantines them.",
            "This one is on us: a DKIM key change on our side means the payslip notifications fail authentication, "
            "so Outlook and Microsoft 365 mailboxes hold them back.",
        ],
        "internal": ["DKIM selector pf2 not published when rotation went out. O365 tenants quarantining. Ops fixed "
                     "DNS, NOTIF-88.",
                     "Payslip notifications failing DKIM since rotation: same as the other M365 tickets."],
        "fixes": [
            "Our DNS has been corrected so new emails verify again. Your IT team can release the quarantined "
            "messages, or you can resend the notifications from the pay run's Payslips tab.",
            "The signing is fixed for future emails. To resend this month's, open the pay run, go to Payslips and "
            "choose 'Resend notifications'.",
        ],
        "near": ["employee-email-typo", "portal-invite-expired"],
    },
    {
        "key": "pension-qualifying-earnings",
        "cause": "The pension connector v2 migration dropped the 'qualifying earnings' scheme basis: contributions "
                 "are calculated on total pay",
        "tags": ["pension", "auto-enrolment", "deductions"],
        "priority": ["high", "normal"],
        "titles": ["Pension deductions too high", "Pension contributions calculated on full salary",
                   "{pension} upload rejected - contributions don't match",
                   "Employer pension cost jumped this month", "Auto-enrolment contributions wrong"],
        "symptoms": [
            "Pension deductions on this month's payslips are higher than usual for everyone in the scheme. It looks "
            "like the 5% is being taken from their whole salary.",
            "Our employer pension contributions went up by about £{amount} compared to last month with the same "
            "headcount. Finance asked me why.",
            "The contribution file we sent to {pension} came back with errors on most lines saying the "
            "contributions don't match the earnings.",
            "An employee queried her payslip: pension was worked out on £2,400 when I'd expect only the part above "
            "the lower earnings threshold to count.",
            "Since the pension connector was upgraded, the pensionable pay figure on the payslip equals gross pay.",
        ],
        "details": [
            "Our scheme is set up on qualifying earnings, it always has been.",
            "It's affecting every enrolled employee.",
            "Nothing has changed in our pension settings on our side.",
            "We reconnected the pension provider when you asked everyone to move to the new connector.",
        ],
        "errors": ["Contribution does not match earnings basis (line {nn})"],
        "staff_cause": [
            "When we moved pension schemes to the new connector (v2), the scheme basis wasn't carried over for some "
            "schemes. Yours fell back to 'total pay', so contributions are calculated on the full salary instead of "
            "qualifying earnings.",
            "The earnings basis on your scheme was lost in the pension connector migration, which is why pensionable "
            "pay equals gross pay and the provider rejects the file.",
        ],
        "internal": ["Connector v2 migration bug again: earnings basis null -> defaulting to total pay. PEN-412.",
                     "Qualifying earnings basis missing after migration; restored manually."],
        "fixes": [
            "I've restored the qualifying earnings basis on the scheme. Recalculate the draft run and the "
            "contributions will be corrected; for the run already paid, Payfern will refund the over-deduction "
            "in the next period.",
        ],
        "near": ["opt-out-timing", "salary-sacrifice-change"],
    },
    {
        "key": "overtime-double",
        "cause": "Editing a timesheet after manager approval and re-approving adds a second overtime line: "
                 "overtime is paid twice",
        "tags": ["timesheets", "overtime", "pay-run"],
        "priority": ["high", "normal"],
        "titles": ["Overtime paid twice", "Overtime appearing twice on payslip", "Duplicate overtime in pay run",
                   "Overtime costs doubled this month", "Employee overpaid overtime"],
        "symptoms": [
            "One of our warehouse staff has been paid his overtime twice this month. The payslip shows two "
            "identical overtime lines for the same week.",
            "The payroll cost report shows overtime almost double what the shift managers signed off.",
            "A supervisor corrected an employee's hours on a timesheet after it had been approved, approved it "
            "again, and now that week's overtime appears twice in the pay run.",
            "We've got several people with duplicated overtime in the draft run. The timesheets themselves only "
            "show the hours once.",
            "An employee has honestly told us she was overpaid. Looking at it, her extra hours at time and a half "
            "were added twice.",
        ],
        "details": [
            "It's only people whose timesheets were changed after approval, as far as I can see.",
            "The timesheet audit shows it was approved twice.",
            "The basic hours are fine, it's only the overtime.",
        ],
        "staff_cause": [
            "When an approved timesheet is edited and approved again, the second approval adds a new overtime "
            "line instead of replacing the first one. That's a bug on our side and it's why the overtime is doubled.",
            "The duplicate comes from the re-approval: the timesheet was edited after it was approved, and "
            "approving it again pushed its overtime into the pay run a second time.",
        ],
        "internal": ["Re-approval duplicates overtime pay element (TS-519). Affected runs: any timesheet edited "
                     "post-approval.",
                     "Another TS-519 double overtime."],
        "fixes": [
            "For this run, delete the extra overtime line from the employee's pay before approving. Our fix will "
            "stop re-approval adding a second line.",
            "We've removed the duplicated lines from your draft. If anyone was already paid twice, you can recover it "
            "as an overpayment deduction next period.",
        ],
        "near": ["overtime-not-mapped", "old-hourly-rate"],
    },
    {
        "key": "sso-uppercase-email",
        "cause": "Since the 2 October sign-in update, matching the Microsoft account to the employee record is "
                 "case-sensitive: employees whose Azure AD email has capitals can't sign in",
        "tags": ["self-service", "login", "sso"],
        "priority": ["normal", "high"],
        "titles": ["Some employees can't log in to the portal", "Sign in with Microsoft not working for a few staff",
                   "Employee portal login loop", "'No employee record' error on sign in",
                   "Staff locked out of self-service"],
        "symptoms": [
            "A handful of our employees can't get into the self-service portal with their Microsoft login. Everyone "
            "else is fine.",
            "When {employee} signs in with Microsoft the portal sends them straight back to the login page, every "
            "time, although the same Microsoft account works fine in Outlook.",
            "Some staff get a message saying there's no employee record for their account, even though they're "
            "definitely set up and were paid last month.",
            "Our IT team noticed the people who can't log in all have capital letters in their email address in "
            "Azure, like J.McAllister@.",
            "The mobile app also won't let these people sign in, it just says something about no record and "
            "goes back.",
        ],
        "details": [
            "It started early October, I think.",
            "Their email on the employee record is correct.",
            "Resetting their Microsoft password didn't help.",
        ],
        "errors": ["No employee record matches this account", "No employee record matches the signed-in account"],
        "staff_cause": [
            "Our sign-in update on 2 October made the email comparison case-sensitive by mistake. Employees whose "
            "email in Azure AD has capitals no longer match their lower-case address on the employee record.",
            "It's the capital letters: since our 2 October change, the Microsoft sign-in compares emails exactly, "
            "so 'J.McAllister@' doesn't match 'j.mcallister@' on the record.",
        ],
        "internal": ["Case-sensitive email match regression (AUTH-77). Workaround: set record email to the exact "
                     "Azure casing."],
        "fixes": [
            "A fix is going out this week. In the meantime, you can edit the employee's work email on their record "
            "to match the capitalisation in Azure AD exactly, and they'll be able to sign in.",
        ],
        "near": ["leaver-access", "expired-client-secret"],
    },
    {
        "key": "p60-pay-frequency",
        "cause": "P60s only include pay from the last pay frequency for employees who moved between weekly and "
                 "monthly pay during the tax year",
        "tags": ["year-end", "p60", "tax"],
        "priority": ["normal", "high"],
        "titles": ["P60 total pay is wrong", "P60 doesn't match payslips", "Employee's P60 missing months",
                   "P60 figures lower than actual pay", "Mortgage lender queried P60"],
        "symptoms": [
            "An employee's P60 shows total pay of about half what she actually earned. When I add up her payslips "
            "for the year it's much higher.",
            "A mortgage lender has rejected an employee's application because the P60 figure doesn't match the "
            "payslips he sent them.",
            "The P60s for the drivers who moved from weekly to monthly pay in the autumn look wrong. The tax paid "
            "box is too low.",
            "Our year-end summary report totals don't agree with the P60s for a few employees. The HMRC submission "
            "itself looked fine.",
            "Someone who changed from weekly to monthly pay last year has a P60 that only seems to cover part of "
            "the year.",
        ],
        "details": [
            "Everyone else's P60 looks right.",
            "These are all people who changed pay frequency during the year.",
            "HMRC's personal tax account shows the correct figure for him.",
        ],
        "staff_cause": [
            "When an employee changes pay frequency during the tax year, the P60 is only built from their pay "
            "under the latest frequency. Pay from the earlier weekly or monthly schedule is left out.",
            "The P60s are missing the earlier part of the year because of the pay frequency change: our year-end "
            "document only totals the last schedule the employee was on.",
        ],
        "internal": ["P60 generator ignores prior frequency's YTD (YE-61). Regenerate after fix."],
        "fixes": [
            "We've fixed the P60 generation. Go to Year end > P60s, select the affected employees and choose "
            "'Regenerate'; the new documents will include the whole year.",
        ],
        "near": ["leaver-no-p60"],
    },
    {
        "key": "fx-rate-stuck",
        "cause": "The exchange-rate feed stopped updating on 2 September (expired provider key): foreign-currency "
                 "expense claims are converted at 1.0",
        "tags": ["expenses", "currency", "reimbursement"],
        "priority": ["normal", "high"],
        "titles": ["Expenses in euros reimbursed at face value", "Foreign currency expenses wrong amount",
                   "Exchange rate showing 1.0000 on expense claims", "Overpaid on USD expenses",
                   "Currency conversion not working on claims"],
        "symptoms": [
            "A driver claimed €120 for fuel in France and was reimbursed £120. The conversion doesn't seem to have "
            "happened.",
            "On the expense report the exchange rate column says 1.0000 for every {currency} claim this month.",
            "Finance noticed we've overpaid a consultant's {currency} expenses. Every foreign amount has been paid "
            "as if it were sterling.",
            "Claims in US dollars are coming through at exactly the same number in pounds. This used to convert "
            "automatically.",
            "Our expense approvers have spotted that the converted amount always equals the original amount on "
            "foreign receipts.",
        ],
        "details": [
            "Claims in sterling are fine.",
            "It looks like it's been happening since early September.",
            "The receipts are clearly marked in the right currency.",
        ],
        "staff_cause": [
            "The exchange-rate feed we use stopped updating on 2 September because of an expired key on our side. "
            "Since then, claims in other currencies have been converted at a rate of 1.",
            "Our currency rates haven't refreshed since early September, and when no rate is available the claim "
            "falls back to 1.0, which is why foreign claims were paid at face value.",
        ],
        "internal": ["FX feed key expired 02/09. Rates fall back to 1.0. EXP-230 - rates backfilled, claims need "
                     "recalculation."],
        "fixes": [
            "The rates have been backfilled. Claims not yet paid will be recalculated automatically; for ones "
            "already paid, you can raise an adjustment from Expenses > Paid claims > Recalculate.",
        ],
        "near": ["wrong-currency-selected", "expense-after-cutoff"],
    },
    {
        "key": "esign-long-contracts",
        "cause": "Since the PDF renderer upgrade, onboarding documents with a signature field beyond page 10 fail to "
                 "render and stay 'Sending' forever",
        "tags": ["onboarding", "documents", "e-signature"],
        "priority": ["normal", "high"],
        "titles": ["New starter contract stuck on 'Sending'", "Onboarding documents not arriving",
                   "Contract never reached new employee", "Can't resend onboarding pack",
                   "E-sign request stuck"],
        "symptoms": [
            "We sent a contract to a new starter on {weekday} and it still says 'Sending'. She hasn't received "
            "anything.",
            "The onboarding pack for our new chefs is stuck. The short offer letter went out fine, but the "
            "employment contract with the staff handbook never arrives.",
            "I tried resending the document three times and the status goes straight back to 'Sending'. The resend "
            "button then greys out.",
            "All our long contracts seem to be stuck in the onboarding queue. Anything a couple of pages long is "
            "signed within the day.",
            "Our new starter turns up on Monday and still hasn't been able to sign her contract in the portal.",
        ],
        "details": [
            "The contract is about {nn} pages with the signature at the end.",
            "The email address is right, she's received other emails from us.",
            "It started after you changed the document viewer, I think.",
        ],
        "errors": ["Render failed: signature field outside page bounds"],
        "staff_cause": [
            "After we upgraded our PDF renderer, documents whose signature field sits after page 10 fail to render, "
            "so the request never leaves the queue and stays on 'Sending'.",
            "It's the length of the document: the new renderer can't place signature fields beyond page 10, and the "
            "send fails silently.",
        ],
        "internal": ["Renderer upgrade: sig fields > page 10 fail (DOC-144). Workaround: move signature page to "
                     "front or split."],
        "fixes": [
            "As a workaround, upload the handbook as a separate document without a signature field, and keep the "
            "signature page in the contract itself. A fix for long documents is in progress.",
        ],
        "near": ["starter-personal-email", "template-no-signature"],
    },
    {
        "key": "approver-cache",
        "cause": "The CSV org-chart import updates 'reports to' but not the cached approval chain: leave requests "
                 "still go to the previous manager",
        "tags": ["leave", "approvals", "import"],
        "priority": ["normal", "low", "normal"],
        "titles": ["Leave requests going to old manager", "Holiday requests stuck awaiting approval",
                   "Approver not updated after restructure", "Manager can't see team's leave requests",
                   "Leave approvals going to someone who left"],
        "symptoms": [
            "After we imported our new team structure, holiday requests from {nn} people are still being sent to "
            "their old managers.",
            "One of our new team leaders says she can't see any leave requests from her team, but her team say "
            "they've submitted them.",
            "Leave requests for a whole department are sitting in 'awaiting approval' because they went to a "
            "manager who left the company last month.",
            "The employee profiles show the correct 'reports to' person, but the approval goes to the previous "
            "one.",
            "Since the restructure upload, approvals are all over the place. Some people's requests go to managers "
            "in completely different teams.",
        ],
        "details": [
            "We did the update by CSV import rather than one by one.",
            "People we moved manually seem fine.",
            "The org chart view looks correct.",
        ],
        "staff_cause": [
            "The org chart import updates each employee's 'reports to' field but doesn't rebuild the approval "
            "chain, which is cached. Requests keep following the old chain until it's refreshed.",
            "This comes from the CSV import: it changes the manager on the profile, but the approval routing is "
            "stored separately and wasn't refreshed, so it still points at the previous managers.",
        ],
        "internal": ["Import doesn't invalidate approver cache (HR-2189). Ran refresh for the company."],
        "fixes": [
            "I've refreshed the approval chains for your company, and pending requests have been moved to the "
            "current managers. Future imports will do this automatically once our fix ships.",
        ],
        "near": ["manager-no-delegate"],
        "near_clusters": ["part-time-accrual"],
    },
]

NEAR_MISSES = [
    {"key": "wrong-tax-code-entered", "cause": "The employee's tax code was keyed in wrongly (BR instead of 1257L)",
     "tags": ["payslips", "tax"], "titles": ["One employee's tax much too high", "Tax deduction wrong on payslip"],
     "symptoms": ["One of our employees, Amira Hassan, has had far more income tax deducted this month than usual. "
                  "Everyone else's payslip looks fine.",
                  "An employee's payslip shows tax at 20% on everything. Her colleagues on the same salary pay "
                  "much less tax."],
     "details": ["She joined in the summer and I set her up manually."],
     "staff_cause": ["The tax code on the employee's record is BR, which taxes all of her pay at the basic rate with "
                     "no personal allowance. It looks like it was entered by hand when she was set up.",
                     "Her record has the code entered as BR rather than 1257L, so the tax is correct for the code "
                     "but the code itself is wrong."],
     "fixes": ["Update the tax code on the employee's Tax tab to the code HMRC issued, then recalculate; the "
               "cumulative calculation will refund the over-deduction."]},
    {"key": "emergency-code-new-starter", "cause": "New starter without a P45 is on an emergency tax code",
     "tags": ["payslips", "tax", "new-starter"], "titles": ["New starter taxed too much", "Emergency tax on new employee"],
     "symptoms": ["A new starter's first payslip shows much more tax than we expected and the code says 1257L M1. "
                  "Is the tax calculation wrong?"],
     "staff_cause": ["The M1 at the end of the code means it's being used on a non-cumulative (emergency) basis, "
                     "because no P45 or starter declaration was recorded. The calculation is correct for that code."],
     "fixes": ["Once HMRC sends an updated code, or you record the starter checklist, the next run will put it "
               "right."]},
    {"key": "leave-year-start", "cause": "The company's leave year start is set to January instead of April",
     "tags": ["holiday", "leave"], "titles": ["Holiday balances reset at the wrong time", "Leave allowance reset in January?"],
     "symptoms": ["Everybody's holiday balance has been reset to their full allowance, but our leave year runs April "
                  "to March. Part-time and full-time staff are all affected."],
     "staff_cause": ["Your leave policy's year start is set to 1 January, so balances reset then. It isn't related to "
                     "working patterns; the policy setting just doesn't match your leave year."],
     "fixes": ["Change the leave year start under Settings > Leave policies, then use 'Recalculate balances'."]},
    {"key": "pattern-never-entered", "cause": "A part-time employee's working pattern was never entered",
     "tags": ["holiday", "part-time"], "titles": ["Part-time employee has wrong holiday allowance"],
     "symptoms": ["One of our part-time staff has a full-time holiday allowance. She works three days a week. The other "
                  "part-timers look correct."],
     "staff_cause": ["Her record has no working pattern, so the system uses the company default of five days a week. "
                     "It was never set when she was added."],
     "fixes": ["Add her three-day pattern on the Employment tab and the allowance will be pro-rated."]},
    {"key": "bad-sort-code", "cause": "One employee's bank details are invalid (sort code fails modulus check)",
     "tags": ["bacs", "payments"], "titles": ["Bank rejected one payment in our BACS file", "One employee not paid"],
     "symptoms": ["The bank accepted our payment file but one employee's payment was rejected. Everyone else was "
                  "paid as normal.",
                  "Our BACS upload came back with a warning about one record, and that person wasn't paid."],
     "errors": ["Record 14: sort code fails modulus check"],
     "staff_cause": ["The file itself is fine: it's that employee's sort code and account number, which don't pass the "
                     "bank's modulus check. They were probably mistyped when the employee updated them."],
     "fixes": ["Ask the employee to confirm their bank details, correct them and pay them with a one-off payment."]},
    {"key": "after-cutoff", "cause": "The pay run was approved after the bank's BACS cut-off",
     "tags": ["bacs", "payments", "pay-run"], "titles": ["Salaries paid a day late", "Payments didn't arrive on pay day"],
     "symptoms": ["Our staff weren't paid on pay day, the money arrived a day later. The bank didn't reject the file "
                  "and we didn't get any errors."],
     "staff_cause": ["The run was approved and the file submitted after 22:30 on the processing day, which is after the "
                     "BACS cut-off, so the payments moved to the next cycle. Nothing was wrong with the file."],
     "fixes": ["BACS needs the file by the evening three working days before pay day."]},
    {"key": "employee-email-typo", "cause": "The employee's email address on their record is mistyped",
     "tags": ["payslips", "email"], "titles": ["One employee never gets payslip emails"],
     "symptoms": ["Megan Lloyd says she has never had a payslip notification email from us. Everyone else gets them and "
                  "she's checked her junk folder."],
     "staff_cause": ["Her email on the employee record is spelled wrong (gmial.com), so the notifications bounce. "
                     "Nothing is wrong with the emails themselves."]},
    {"key": "portal-invite-expired", "cause": "Self-service portal invitations expire after 7 days",
     "tags": ["self-service", "email"], "titles": ["Invite link to employee portal doesn't work"],
     "symptoms": ["New employees say the link in the self-service invitation email doesn't work any more. They got the "
                  "email a couple of weeks ago."],
     "staff_cause": ["Portal invitations are valid for 7 days; these ones have expired. It's expected behaviour."],
     "fixes": ["Resend the invitation from the employee's profile and ask them to use it within the week."]},
    {"key": "opt-out-timing", "cause": "Pension opt-out recorded after this period's cut-off",
     "tags": ["pension", "auto-enrolment"], "titles": ["Pension still deducted after opt out"],
     "symptoms": ["An employee opted out of the pension last week but this month's payslip still has a pension "
                  "deduction."],
     "staff_cause": ["The opt-out was recorded after the run's cut-off, so this period still includes the deduction. "
                     "It will be refunded automatically in the next run."]},
    {"key": "salary-sacrifice-change", "cause": "The employee's contribution was changed by a salary sacrifice update",
     "tags": ["pension", "deductions"], "titles": ["Pension deduction different for one employee"],
     "symptoms": ["One employee's pension contribution has gone up this month and the pensionable pay looks different "
                  "from before. Nobody else changed."],
     "staff_cause": ["His contribution rate was changed to 8% salary sacrifice on {date} by one of your admins, which is "
                     "why it moved. The scheme settings are fine."]},
    {"key": "overtime-not-mapped", "cause": "The overtime timesheet category isn't mapped to a pay element",
     "tags": ["timesheets", "overtime"], "titles": ["Overtime missing from pay run", "Overtime hours not paid"],
     "symptoms": ["Our staff's overtime hours aren't showing in the pay run at all, even though the timesheets are "
                  "approved and show the extra hours."],
     "staff_cause": ["The 'Overtime 2x' category on your timesheets isn't linked to a pay element, so approved hours in "
                     "that category never reach the pay run."],
     "fixes": ["Map it under Settings > Timesheets > Categories, then re-sync the approved timesheets."]},
    {"key": "old-hourly-rate", "cause": "The employee's hourly rate on their record is out of date",
     "tags": ["timesheets", "overtime", "pay-run"], "titles": ["Overtime paid at wrong rate"],
     "symptoms": ["An employee's overtime was paid at a lower rate than it should be. The hours on the payslip are "
                  "right, only the rate looks off."],
     "staff_cause": ["The overtime is calculated from his hourly rate, which is still last year's rate on his record. "
                     "His pay rise was added to his salary field but not the hourly rate."]},
    {"key": "leaver-access", "cause": "The employee was marked as a leaver, which ends portal access",
     "tags": ["self-service", "login"], "titles": ["Former employee can't log in to see payslips"],
     "symptoms": ["An employee who left us last month can't log in to the self-service portal to download her "
                  "payslips. She gets sent back to the sign in page."],
     "staff_cause": ["Portal access ends 30 days after the leaving date recorded on the employee. That's by design, so "
                     "leavers should download payslips before then."],
     "fixes": ["You can extend access for her from the employee's Leaver tab, or send her the payslips as PDFs."]},
    {"key": "expired-client-secret", "cause": "The customer's Azure app client secret expired",
     "tags": ["sso", "login"], "titles": ["Nobody can sign in with Microsoft"],
     "symptoms": ["Since this morning none of our staff can sign in to the portal with Microsoft. Admin login with "
                  "password still works."],
     "errors": ["AADSTS7000222: The provided client secret keys are expired"],
     "staff_cause": ["The client secret on your Azure AD app registration expired today, so Microsoft refuses the "
                     "sign-in for everyone. It needs a new secret from your IT team."]},
    {"key": "leaver-no-p60", "cause": "Leavers get a P45, not a P60 (by design)",
     "tags": ["year-end", "p60"], "titles": ["P60 missing for some employees"],
     "symptoms": ["A few employees didn't get a P60 at year end. One of them is asking because she needs it for a "
                  "mortgage application."],
     "staff_cause": ["Employees who left before 5 April get a P45 instead of a P60, so there is no P60 for them. The "
                     "P45 shows the same year-to-date totals."]},
    {"key": "wrong-currency-selected", "cause": "The employee picked the wrong currency on the claim",
     "tags": ["expenses", "currency"], "titles": ["Expense claim converted wrongly"],
     "symptoms": ["An employee's hotel in Dublin was paid back as about £140 less than the receipt. The conversion "
                  "seems off."],
     "staff_cause": ["The claim was entered in GBP rather than EUR, so it wasn't converted at all. The rates "
                     "themselves are up to date."]},
    {"key": "expense-after-cutoff", "cause": "Expense claims approved after the payroll cut-off go to next month",
     "tags": ["expenses", "reimbursement"], "titles": ["Approved expenses not paid this month"],
     "symptoms": ["Several expense claims were approved but aren't on this month's payslips. The staff are chasing "
                  "me for the money."],
     "staff_cause": ["They were approved after the run's expenses cut-off on the 20th, so they'll be paid in next "
                     "month's run."]},
    {"key": "starter-personal-email", "cause": "The onboarding pack was sent to the starter's old personal address",
     "tags": ["onboarding", "documents"], "titles": ["New starter didn't receive contract"],
     "symptoms": ["A new starter says she didn't receive her contract to sign. The status says 'Delivered'."],
     "staff_cause": ["It was delivered to the personal email on her record, which is an old address she no longer "
                     "uses. The documents themselves are fine."]},
    {"key": "template-no-signature", "cause": "The contract template has no signature field",
     "tags": ["onboarding", "e-signature"], "titles": ["Contract sent but nowhere to sign"],
     "symptoms": ["Our new contract template goes out, but the new starters say there's no place to sign it, so it "
                  "never completes."],
     "staff_cause": ["The template has no signature field placed on it, so the document can only be viewed. Add a "
                     "signature field in the template editor."]},
    {"key": "manager-no-delegate", "cause": "The approving manager is on leave with no delegate set",
     "tags": ["leave", "approvals"], "titles": ["Leave requests waiting for ages"],
     "symptoms": ["My team's leave requests have been waiting for approval for two weeks. Our manager is away on "
                  "sabbatical."],
     "staff_cause": ["Requests are going to the right manager, but he's away and has no delegate set, so nobody can "
                     "approve them."],
     "fixes": ["An admin can set a delegate on his profile, and pending requests will move to the delegate."]},
]

SINGLETONS = [
    {"title": "How do I backdate a pay rise?", "tags": ["pay-run", "how-to"],
     "body": "We've agreed a pay rise for {employee} effective from {month} 1st but it's already been paid at the old "
             "rate. How do I pay the arrears in the next run?",
     "reply": "You can enter the new salary with the effective date in the past; Payfern will work out the arrears and "
              "add them as a separate line in the next run."},
    {"title": "Change company address on payslips", "tags": ["payslips", "settings"],
     "body": "We've moved offices. Where do I change the address that appears at the top of payslips?",
     "reply": "It's under Settings > Company > Registered address. Payslips generated after the change use the new "
              "address."},
    {"title": "Statutory maternity pay calculation", "tags": ["smp", "question"],
     "body": "An employee is starting maternity leave in November. Does Payfern work out SMP automatically from her "
             "average earnings, or do I need to enter it?",
     "reply": "Once you record the leave with the expected week of childbirth, Payfern calculates average weekly "
              "earnings and SMP automatically. You can review the figures before the run."},
    {"title": "Add another payroll admin", "tags": ["permissions", "how-to"],
     "body": "Our new finance assistant needs access to run payroll. What role should I give her?",
     "reply": "Give her the Payroll Admin role under Settings > Users. If she shouldn't see salaries for directors, "
              "use Payroll Admin (restricted) instead."},
    {"title": "Invoice shows wrong VAT number", "tags": ["billing", "invoices"],
     "body": "Our Payfern invoice for {month} has our old VAT number on it. Can you reissue it?",
     "reply": "I've updated the VAT number on your billing profile and reissued the invoice; it's under Settings > "
              "Billing."},
    {"title": "Student loan plan 2 not deducting", "tags": ["deductions", "student-loan"],
     "body": "A new employee's P45 shows student loan deductions but nothing is being deducted here.",
     "reply": "Student loan plans aren't read from the P45; you need to tick the plan on the employee's Tax tab or wait "
              "for HMRC's SL1 notice."},
    {"title": "Can we pay contractors through Payfern?", "tags": ["question", "contractors"],
     "body": "We have a couple of self-employed contractors. Can we pay them through Payfern without putting them on "
             "payroll?"},
    {"title": "Export employee list to Excel", "tags": ["reports", "export"],
     "body": "I need a list of all employees with start dates and departments for our insurer. Is there an export?",
     "reply": "Reports > People > Employee list lets you pick columns and export to CSV or Excel."},
    {"title": "Change pay date for December", "tags": ["pay-run", "how-to"],
     "body": "We want to pay everyone early in December because of Christmas. Can I change the pay date just for that "
             "month?",
     "reply": "Yes: open the December pay period and edit the payment date. Only that period changes, and the RTI "
              "submission will use the new date."},
    {"title": "Duplicate employee record", "tags": ["employees", "data"],
     "body": "{employee} has two records after a re-hire. Can they be merged? Only one has pay history this year.",
     "reply": "Records can't be merged, but you can mark the unused one as created in error, which removes it from "
              "reports and RTI."},
    {"title": "Reset 2FA for our account owner", "tags": ["login", "security"],
     "body": "Our account owner has a new phone and lost the authenticator app. She can't get into Payfern at all.",
     "reply": "We've sent a verification email to the owner. Once she confirms, we'll reset her two-factor "
              "authentication and she can enrol the new phone."},
    {"title": "Subject access request from former employee", "tags": ["gdpr", "data"],
     "body": "A former employee has made a subject access request. Can we export everything Payfern holds about him?"},
    {"title": "Statutory sick pay waiting days", "tags": ["ssp", "question"],
     "body": "Does Payfern apply the three waiting days for SSP automatically if someone is off sick twice in a "
             "month?",
     "reply": "Yes: periods of sickness within 8 weeks of each other are linked, and waiting days are only applied "
              "once across linked periods."},
    {"title": "Mileage allowance rate", "tags": ["expenses", "question"],
     "body": "Can we set a mileage rate of 50p per mile rather than the HMRC 45p?",
     "reply": "Yes, under Settings > Expenses > Mileage. Anything above the HMRC approved rate is reported as a taxable "
              "benefit automatically."},
    {"title": "Cancel our subscription", "tags": ["billing", "cancellation"],
     "body": "We're merging with another company that has its own payroll provider. How do we cancel and keep our "
             "records?",
     "reply": "You can cancel from Settings > Billing. Your account stays readable for 6 years so you can still "
              "download payslips and year-end documents."},
    {"title": "Dark mode in the mobile app", "tags": ["mobile", "feature-request"],
     "body": "Any plans to add dark mode to the employee app? A few of our night staff have asked."},
    {"title": "API access for our HR system", "tags": ["api", "integrations"],
     "body": "We'd like to sync new starters from our recruitment system. Is there an API, and which plan is it on?",
     "reply": "The People API is available on Growth and Enterprise plans. You can create a key under Settings > "
              "Developers."},
    {"title": "Director's NI calculated annually?", "tags": ["tax", "question"],
     "body": "Our director's National Insurance looks different from everyone else's. Is it supposed to be worked "
             "out annually?",
     "reply": "Yes, directors default to the annual earnings period for NI. You can switch to the alternative method "
              "on the director's Tax tab."},
    {"title": "Payslip template logo", "tags": ["payslips", "settings"],
     "body": "Our logo looks stretched on the payslip PDF. What size should it be?",
     "reply": "Use a PNG at least 600 pixels wide with a 3:1 ratio; it's scaled to fit the header."},
    {"title": "Holiday pay for irregular hours workers", "tags": ["holiday", "question"],
     "body": "We have casual bar staff on irregular hours. Does Payfern support the 12.07% accrual method?",
     "reply": "Yes: choose 'Irregular hours (12.07%)' on their leave policy and holiday accrues from hours worked on "
              "each timesheet."},
]

ARTICLES = {
    "running-a-pay-run": {
        "title": "Running a pay run",
        "intro": "A pay run takes your employees' pay for one period from draft to payment and the RTI submission.",
        "sections": [
            ("Creating the draft", "Payfern creates a draft run for each pay schedule a week before the pay date. "
             "The draft picks up salaries, approved timesheets, expenses and leave. You can add one-off payments or "
             "deductions to any employee before you approve."),
            ("Reviewing and recalculating", "Check the variance report, which highlights employees whose net pay "
             "changed by more than 10%. If you change an employee record, a tax code or a setting, click "
             "Recalculate so the draft uses the new values. Recalculating never changes a run that has already "
             "been approved."),
            ("Approving and submitting to HMRC", "Approving the run locks it, creates payslips and sends the Full "
             "Payment Submission (FPS) to HMRC. Approve at least three working days before the pay date if you "
             "pay by BACS. If you need to change an approved run, roll it back before the pay date."),
            ("Payslips and notifications", "Employees are emailed when their payslip is ready and can view it in the "
             "self-service portal or the app. You can resend notifications from the run's Payslips tab. Payslip "
             "emails come from payslips@payfern.example, so ask your IT team to allow that sender."),
        ],
    },
    "tax-codes-and-tax-tables": {
        "title": "Tax codes and tax tables",
        "sections": [
            ("How PAYE is calculated", "Payfern calculates income tax from the employee's tax code and the tax "
             "tables for the current tax year. Most codes are cumulative, so tax is worked out on pay to date and "
             "any under- or over-deduction evens out over the year. Scottish and Welsh codes use their own bands."),
            ("Updating an employee's tax code", "HMRC sends code changes electronically and Payfern applies them to "
             "the next run. You can also enter a code by hand on the employee's Tax tab. A code entered by hand "
             "overrides the previous one, so double-check it against the HMRC notice."),
            ("Emergency and non-cumulative codes", "Codes ending in W1, M1 or X are applied non-cumulatively, which "
             "means each period is taxed on its own. New starters without a P45 or starter checklist are often put "
             "on an emergency code. The code is replaced once HMRC sends an updated one."),
            ("Checking which tax tables a run used", "The audit tab of every pay run shows the tax table version used "
             "for its calculations. At the start of a new tax year it should show the new year's tables. If it "
             "shows the previous year's version, contact support before you approve the run."),
        ],
    },
    "pensions-auto-enrolment": {
        "title": "Pensions and auto-enrolment",
        "sections": [
            ("Connecting your pension provider", "Payfern connects to NEST, The People's Pension, Aviva and Royal "
             "London. Once connected, contribution files are sent after every approved run. If the provider "
             "rejects a file, the error is shown on the run's Pensions tab."),
            ("Scheme basis: qualifying earnings or total pay", "Each scheme calculates contributions on either "
             "qualifying earnings, which is pay between the lower and upper thresholds, or on total pay. The basis "
             "is set on the scheme and must match what your provider expects. Payslips show the pensionable pay "
             "used for each employee."),
            ("Opt-outs and refunds", "Employees can opt out within one month of being enrolled. An opt-out recorded "
             "before the run's cut-off stops the deduction that period. If it arrives later, the deduction is "
             "refunded in the next run."),
            ("Salary sacrifice", "With salary sacrifice, the employee's contribution is taken from gross pay before "
             "tax and National Insurance. You can switch an employee to salary sacrifice on their Pension tab. The "
             "change applies from the next run."),
        ],
    },
    "paying-employees-by-bacs": {
        "title": "Paying employees by BACS",
        "sections": [
            ("Exporting the payment file", "After you approve a run, download the payment file from Pay run > "
             "Payments. Payfern supports Standard 18 and the formats used by Bankline, Barclays.Net and Lloyds "
             "Commercial Banking Online. Choose the format under Export settings."),
            ("When the bank rejects the file", "If the bank rejects the whole file, the problem is with the file's "
             "format or header, not with an employee. Check that the export format matches the bank's, and export "
             "again. If it still fails, send us the bank's error message."),
            ("When one payment fails", "If only one payment is rejected, the employee's bank details are usually "
             "invalid. Ask the employee to confirm their sort code and account number. You can then pay them with "
             "a one-off payment outside the run."),
            ("Cut-off times", "BACS payments take three working days. Submit the file before the bank's cut-off on "
             "the processing day, usually 22:30, or payments move to the next cycle."),
        ],
    },
    "holiday-and-leave": {
        "title": "Holiday and leave",
        "sections": [
            ("Leave policies and the leave year", "A leave policy sets the annual allowance, the leave year start "
             "and carry-over rules. Balances reset at the start of the leave year. Change the start under Settings "
             "> Leave policies and recalculate balances."),
            ("Part-time and pro rata allowances", "Allowances are pro-rated from the employee's working pattern and "
             "FTE. Someone working three days a week on a 28-day policy gets 16.8 days. If an employee has no "
             "working pattern, the company's default full-time pattern is used."),
            ("Approvals and delegates", "Leave requests go to the employee's approver, normally the person they "
             "report to. Managers can set a delegate while they are away. Admins can approve any request from "
             "the Leave calendar."),
            ("Irregular hours workers", "For workers with irregular hours, holiday can accrue at 12.07% of hours "
             "worked. Choose the irregular hours policy and accrual follows approved timesheets."),
        ],
    },
    "timesheets-and-overtime": {
        "title": "Timesheets and overtime",
        "sections": [
            ("Submitting and approving timesheets", "Employees or managers enter hours each week, and the approver "
             "signs them off. Approved timesheets flow into the next draft pay run. Hours approved after the run's "
             "cut-off go into the following run."),
            ("Overtime rates", "Each timesheet category is linked to a pay element, such as Overtime 1.5x. The "
             "rate is multiplied by the employee's hourly rate from their record. A category without a pay element "
             "is not paid."),
            ("Correcting an approved timesheet", "To correct hours after approval, edit the timesheet and approve "
             "it again. Check the draft run afterwards to make sure the hours appear once. If the run has already "
             "been approved, the change is paid in the next period."),
        ],
    },
    "employee-self-service": {
        "title": "Employee self-service portal and app",
        "sections": [
            ("Inviting employees", "Employees receive an invitation to the portal when you add their email address. "
             "Invitations are valid for 7 days. You can resend an invitation from the employee's profile."),
            ("Signing in with Microsoft or Google", "If your company uses single sign-on, employees click 'Sign in "
             "with Microsoft' or 'Sign in with Google'. Payfern matches the account's email to the work email on "
             "the employee record. If no record matches, the employee sees an error and returns to the sign-in "
             "page."),
            ("Leavers", "Leavers keep access for 30 days after their leaving date so they can download payslips "
             "and their P45. You can extend access from the Leaver tab."),
            ("Documents and e-signing", "You can send contracts and policies for employees to sign in the portal. "
             "The status moves from Sending to Delivered to Signed. A document with no signature field can be "
             "viewed but not signed."),
        ],
    },
    "year-end-and-p60s": {
        "title": "Year end and P60s",
        "sections": [
            ("What happens at year end", "After the last run of the tax year, Payfern sends the final submission "
             "and generates P60s for everyone employed on 5 April. Employees can download P60s from the portal. "
             "P60s are issued by 31 May."),
            ("Leavers and P45s", "Employees who left during the year get a P45 instead of a P60. The P45 shows "
             "their pay and tax to the leaving date."),
            ("Correcting a P60", "If a P60 is wrong, fix the underlying pay data first and then regenerate the P60 "
             "from Year end > P60s. Regenerated P60s replace the old version in the employee's portal. Employees "
             "who changed pay frequency during the year should have a single P60 covering all of it."),
        ],
    },
}

QUERIES = [
    {"q": "how do I change an employee's tax code", "answers": ["tax-codes-and-tax-tables#2"], "kind": "plain"},
    {"q": "tax on the run looks like last year's figures", "answers": ["tax-codes-and-tax-tables#4",
                                                                       "tax-codes-and-tax-tables#1"], "kind": "symptom"},
    {"q": "new starter paying loads of tax, code says M1", "answers": ["tax-codes-and-tax-tables#3"], "kind": "symptom"},
    {"q": "emergency tax", "answers": ["tax-codes-and-tax-tables#3"], "kind": "terse"},
    {"q": "which thresholds does the calculation use this year", "answers": ["tax-codes-and-tax-tables#4",
                                                                             "tax-codes-and-tax-tables#1"],
     "kind": "paraphrase"},
    {"q": "bank bounced the whole salary file", "answers": ["paying-employees-by-bacs#2"], "kind": "paraphrase"},
    {"q": "one person's wages got rejected by the bank", "answers": ["paying-employees-by-bacs#3"], "kind": "paraphrase"},
    {"q": "BACS deadline", "answers": ["paying-employees-by-bacs#4"], "kind": "terse"},
    {"q": "wages turned up a day late even though the file was fine", "answers": ["paying-employees-by-bacs#4"],
     "kind": "symptom"},
    {"q": "pension taken from whole salary not just qualifying earnings", "answers": ["pensions-auto-enrolment#2"],
     "kind": "symptom"},
    {"q": "employee opted out but still got a pension deduction", "answers": ["pensions-auto-enrolment#3"],
     "kind": "plain"},
    {"q": "set up salary sacrifice", "answers": ["pensions-auto-enrolment#4"], "kind": "task"},
    {"q": "link our NEST account", "answers": ["pensions-auto-enrolment#1"], "kind": "task"},
    {"q": "part timer shows the same holiday as full time staff", "answers": ["holiday-and-leave#2"], "kind": "symptom"},
    {"q": "holiday balances reset in january but our year starts in april", "answers": ["holiday-and-leave#1"],
     "kind": "symptom"},
    {"q": "manager on sabbatical, who signs off time off requests?", "answers": ["holiday-and-leave#3"],
     "kind": "paraphrase"},
    {"q": "12.07% holiday accrual casual staff", "answers": ["holiday-and-leave#4"], "kind": "terse"},
    {"q": "overtime showing twice after i fixed a timesheet", "answers": ["timesheets-and-overtime#3"],
     "kind": "symptom"},
    {"q": "overtiem not being paid", "answers": ["timesheets-and-overtime#2"], "kind": "typo"},
    {"q": "staff never got the invite to the payslip portal, link dead", "answers": ["employee-self-service#1"],
     "kind": "symptom"},
    {"q": "employees cant sign in with microsoft says no record", "answers": ["employee-self-service#2"],
     "kind": "typo"},
    {"q": "ex employee wants her payslips", "answers": ["employee-self-service#3"], "kind": "task"},
    {"q": "contract stuck on sending", "answers": ["employee-self-service#4"], "kind": "terse"},
    {"q": "p60 doesnt match payslips, person moved from weekly to monthly", "answers": ["year-end-and-p60s#3"],
     "kind": "typo"},
    {"q": "why didn't a leaver get a P60", "answers": ["year-end-and-p60s#2"], "kind": "plain"},
    {"q": "when do staff get their end of year tax certificate", "answers": ["year-end-and-p60s#1"],
     "kind": "paraphrase"},
    {"q": "resend payslip emails", "answers": ["running-a-pay-run#4"], "kind": "terse"},
    {"q": "I changed someone's salary after the draft was created, how do I get the draft to pick it up?",
     "answers": ["running-a-pay-run#2"], "kind": "task"},
    {"q": "undo an approved pay run", "answers": ["running-a-pay-run#3"], "kind": "task"},
    {"q": "Hi, our IT say the payslip notifications are being held as suspicious by Microsoft 365 and staff are "
          "asking whether they've been paid. The payslips are in the portal. Is there something we need to allow "
          "on our side, and can we send the notifications again once it's sorted?",
     "answers": ["running-a-pay-run#4"], "kind": "long"},
    {"q": "We restructured in August and uploaded the new reporting lines from a spreadsheet. Since then holiday "
          "requests seem to go to the wrong managers and some are stuck waiting for people who have left. Is there a "
          "way for an admin to approve them and to make sure they go to the right person in future?",
     "answers": ["holiday-and-leave#3"], "kind": "long"},
]
