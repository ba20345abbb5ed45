"""Convoya: fleet telematics and delivery dispatch for haulage, van and courier companies (held-out desk).

Writers are transport and fleet managers, dispatchers and planners, compliance and safety managers, the odd
driver whose message a manager forwards, and IT admins for the integrations and single sign-on. Many write
from the yard on a phone: short, blunt, more typos and lower case than an office desk, and a good share of
continental European writers (Polish, German, Dutch, Spanish, Lithuanian, French) whose English is their
second language. Areas: GPS trackers and their SIMs, the live map, geofences and alerts, the driver app (proof
of delivery, offline sync, vehicle checks), route planning and dispatch, customer ETA texts, hours of service
(ELD) and tachograph downloads, fuel cards, maintenance schedules and defects, dashcams, reports and scheduled
exports, the API and webhooks, user roles and single sign-on, driver ID key fobs.
"""

PRODUCT = "Convoya"

STYLE = {
    "lengths": {"oneline": 0.2, "short": 0.38, "medium": 0.27, "long": 0.15},
    "greeting": 0.5,
    "signoff": 0.5,
    "context": (1, 2),
    "rambles": (0, 1),
    "typo_rate": 0.024,
    "careless": 0.55,
    "lowercase": 0.12,
    "no_apostrophes": 0.3,
    "nonnative": 0.65,
    "error_quote": 0.5,
    "hours": (5, 21),
}

STAFF = [("marta", "Marta Kowalczyk"), ("devon", "Devon Okoro"), ("lukas", "Lukas Brenner"),
         ("sian", "Sian Pryce"), ("ray", "Ray Delgado")]

CUSTOMERS = [
    {"name": "Harland Freight", "plan": "Enterprise", "seats": 64, "region": "UK", "contact": "Gareth Moss",
     "sso": "Microsoft", "writers": ["Leanne Booth", "Carl Whitby"],
     "notes": "General haulage, 140 HGVs and 210 trailers from depots in Doncaster and Avonmouth. Remote "
              "tachograph download on every tractor unit; Leanne is the transport planner, Carl the workshop "
              "manager. Customer since 2022."},
    {"name": "Kowalski Transport", "plan": "Pro", "seats": 22, "region": "PL", "contact": "Tomasz Kowalski",
     "sso": None, "writers": ["Agnieszka Nowak"], "voice": "pl",
     "notes": "International groupage between Poland, Germany and the Benelux, 75 trucks. Tacho remote "
              "download and DKV fuel cards. Agnieszka runs dispatch."},
    {"name": "Brightline Couriers", "plan": "Pro", "seats": 18, "region": "UK", "contact": "Jas Sandhu",
     "sso": None, "writers": ["Kerry Walsh"],
     "notes": "Same-day courier with 90 vans, mostly owner-drivers on company Android phones. Heavy use of "
              "proof of delivery photos; uses the API to feed their booking site."},
    {"name": "Van der Berg Logistiek", "plan": "Enterprise", "seats": 41, "region": "NL",
     "contact": "Pieter van Dijk", "sso": "Google", "writers": ["Sanne Bakker"], "voice": "nl",
     "notes": "Temperature-controlled distribution from Rotterdam, 60 trucks and 30 vans. Webhooks into "
              "their own TMS; DKV and UTA fuel cards."},
    {"name": "Lone Star Bulk Haulers", "plan": "Pro", "seats": 15, "region": "US", "contact": "Darnell "
                                                                                              "Hughes",
     "sso": "Okta", "writers": ["Becky Tran"],
     "notes": "Dry bulk and hopper trailers out of Dallas, 55 tractors on the ELD. Becky is the safety and "
              "compliance manager; several team drivers run split sleeper."},
    {"name": "Great Lakes Produce Express", "plan": "Enterprise", "seats": 36, "region": "US",
     "contact": "Mike Kowalczyk", "sso": "Okta", "writers": ["Tanya Brooks"],
     "notes": "Reefer carrier, 120 trucks on the ELD, WEX fuel cards, dashcams on every tractor. Insurance "
              "renewal ties premiums to dashcam coverage."},
    {"name": "Spedition Huber", "plan": "Enterprise", "seats": 48, "region": "DE", "contact": "Stefan Huber",
     "sso": "Microsoft", "writers": ["Katrin Vogel"], "voice": "de",
     "notes": "Family-owned haulier near Augsburg, 95 trucks, many new 2025 Scanias with smart tachographs. "
              "Katrin is the fleet manager; very exact about tachograph compliance."},
    {"name": "Transportes Ribera", "plan": "Pro", "seats": 20, "region": "ES", "contact": "Lucia Ferrer",
     "sso": None, "writers": ["Javier Molina"], "voice": "es",
     "notes": "Groupage and full loads between Valencia, France and Portugal, 50 trucks. Uses route planning "
              "for the local distribution vans around Valencia."},
    {"name": "Greenleaf Home Delivery", "plan": "Pro", "seats": 26, "region": "UK", "contact": "Hannah Price",
     "sso": "Google", "writers": ["Ollie Grant"],
     "notes": "Grocery and meal-box home delivery, 65 vans from two hubs. Imports orders from their webshop "
              "every evening; customer ETA texts are a big part of their service. Ollie is the night "
              "dispatcher."},
    {"name": "Atlantic Plumbing & Heating", "plan": "Essentials", "seats": 5, "region": "IE",
     "contact": "Ciaran Doyle", "sso": None,
     "notes": "Service and installation vans around Cork, 28 vans, trackers only plus maintenance reminders. "
              "Ciaran is one of the owners and does the admin himself."},
    {"name": "Northstar Medical Couriers", "plan": "Enterprise", "seats": 52, "region": "US",
     "contact": "Alicia Romero", "sso": "Okta", "writers": ["Ben Carter"],
     "notes": "Lab specimen and pharmacy courier in the Midwest, 150 cars and vans. Ben is the IT admin who "
              "looks after SSO and the webhook integration with their dispatch system."},
    {"name": "Metro Skip Hire", "plan": "Essentials", "seats": 4, "region": "UK", "contact": "Dave Perkins",
     "sso": None,
     "notes": "Skip and grab lorries in south London, 19 vehicles. Dave writes from his phone between jobs."},
    {"name": "Baltic Road Carriers", "plan": "Pro", "seats": 17, "region": "LT", "contact": "Darius "
                                                                                            "Petrauskas",
     "sso": None, "writers": ["Ieva Kazlauskiene"], "voice": "lt",
     "notes": "Lithuanian international haulier, 110 trucks mostly running Scandinavia and Germany. Tacho "
              "remote download and UTA fuel cards."},
    {"name": "Cotswold Building Supplies", "plan": "Pro", "seats": 23, "region": "UK", "contact": "Fiona "
                                                                                                  "Lyle",
     "sso": "Microsoft", "writers": ["Sam Okafor"],
     "notes": "Builders merchant with crane lorries and flatbeds delivering to sites, 35 vehicles across "
              "four branches. Scheduled reports go to the accounts team and to two big customers."},
    {"name": "Rhone Express Messagerie", "plan": "Pro", "seats": 19, "region": "FR",
     "contact": "Camille Girard", "sso": "Microsoft", "voice": "fr",
     "notes": "Parcel and pallet distribution around Lyon, 70 vans with dashcams. Joined in June 2026."},
]

SLOTS = {
    "vehicle": ["van 14", "truck 207", "unit 31", "the Sprinter KX23 VBN", "tractor 4412", "HGV 09", "van 52",
                "truck 118", "the Transit on route 6", "lorry 23"],
    "driver": ["Marek", "Jim Hollis", "Daniela", "Kofi Mensah", "Steve Rutter", "Ana Lopes", "Rob Keane",
               "Piotr", "Jamal Reed", "Lena"],
    "depot": ["the Doncaster depot", "our north yard", "the Rotterdam hub", "the Dallas terminal",
              "the main depot", "our Leeds site", "the Valencia warehouse", "our second yard"],
    "customer_site": ["Aldi distribution centre", "hospital loading bay", "big Tesco DC", "builders yard in "
                                                                                          "Reading",
                      "cold store in Venlo", "Walmart DC", "retail park", "customer's warehouse"],
    "report": ["Mileage by vehicle", "Driver activity", "Idling summary", "Trips detail", "Fuel usage",
               "Time on site"],
    "month": ["August", "September", "October", "November"],
    "fuelcard": ["DKV", "Shell Fleet", "WEX", "UTA", "Radius"],
}

GREETINGS = ["Hi,", "Hello,", "Hi team,", "Morning,", "Hi {staff},", "Hello Convoya,", "Hiya,", "Good "
                                                                                                "afternoon,",
             "To whom it may concern,", "Hey,"]
SIGNOFFS = ["Thanks,\n{first}", "Cheers\n{first}", "{name}\nTransport Manager, {company}", "Thanks\n{name}",
            "Regards,\n{name} | {company}", "Sent from my phone", "{first}", "Thx"]
VOICE_GREETINGS = {
    "pl": ["Dzien dobry,", "Hello,", "Good morning Sir/Madam,"],
    "de": ["Guten Tag,", "Hello together,", "Dear Convoya team,"],
    "nl": ["Hoi,", "Hello,", "Goedemorgen,"],
    "es": ["Hola,", "Good day,", "Hello team,"],
    "lt": ["Laba diena,", "Hello,", "Good day,"],
    "fr": ["Bonjour,", "Hello,", "Dear support,"],
}
VOICE_SIGNOFFS = {
    "pl": ["Regards,\n{name}", "Pozdrawiam,\n{first}"],
    "de": ["Mit freundlichen Gruessen / best regards\n{name}\n{company}", "Greetings,\n{first}"],
    "nl": ["Met vriendelijke groet,\n{name}", "Gr. {first}"],
    "es": ["Saludos,\n{first}", "Thank you very much,\n{name}"],
    "lt": ["Best regards,\n{name}", "Thank you,\n{first}"],
    "fr": ["Cordialement,\n{name}", "Thanks by advance,\n{first}"],
}
CONTEXT = [
    "We run about {nn} vehicles out of {depot}.",
    "I'm the transport manager, dispatch is a team of four on two shifts.",
    "Peak season is starting so honestly this is the worst time for it.",
    "We have our operator licence audit next month so I need the data to be right.",
    "Writing this from my phone in the yard, sorry for the formatting.",
    "Drivers have been on at me about it all morning.",
    "I look after the IT side only, the fleet manager asked me to raise it.",
    "The night dispatcher flagged it at about {time} last night.",
    "We moved over to Convoya from our old tracking supplier earlier this year.",
    "Forwarding this on behalf of one of our drivers.",
    "Our insurer has been asking questions so I need to get to the bottom of it.",
    "Our biggest customer has already complained about this twice this week.",
]
RAMBLES = [
    "A bit of background: we switched to Convoya in the spring after years on a system that was basically a "
    "map and a spreadsheet, and on the whole the team has taken to it well. The dispatchers especially like "
    "having the routes and the live map in one place. So this isn't a moan about the product in general, "
    "it's just that this particular thing is causing us real grief on the ground and I've run out of ideas.",
    "Just so you understand the pressure, we're a small family firm and every vehicle off the road costs us. "
    "I spent most of yesterday ringing drivers to find out where they were because I couldn't trust the "
    "screen, which is exactly what we bought a tracking system to stop doing. My dad ran this yard with a "
    "radio and a whiteboard for thirty years and he's enjoying this a bit too much.",
    "We've had a lot going on: two new customers since August, a new depot manager, and half the office has "
    "had the flu. So it's possible someone changed a setting without telling me, but I've asked around and "
    "nobody admits to touching anything. I've also been through the help pages and tried what they say.",
    "Sorry if this is long. I'm not very technical and our IT is a contractor who comes in one day a week, "
    "so I'm trying to give you everything I can think of in one go rather than going back and forth.",
]
TRIED = [
    "I've logged out and back in and tried it on another PC.",
    "We rebooted the tracker by pulling the fuse, no change.",
    "The driver has uninstalled and reinstalled the app.",
    "I searched your help pages but nothing matches what we're seeing.",
    "Our IT say nothing has changed on our network or firewall.",
    "I checked the settings against our other depot and they look the same.",
]
ASKS = ["Can you take a look?", "What do we need to do?", "Please help urgently, trucks are waiting.",
        "Is this on your side?", "How do we fix this before tomorrow's routes?", "Let me know if you need "
                                                                                 "more info.",
        "Can someone call me?", "Is it a known issue?", "pls advise"]
ERROR_INTROS = ["It says: \"{error}\"", "Error: {error}", "We get this message \"{error}\"",
                "The log shows \"{error}\".", "Screenshot attached, it says {error}", "message = {error}"]
FOLLOWUP_WAIT = ["Any update?", "Hi, still waiting on this. It's costing us every day.",
                 "Chasing please, the drivers are asking me again.",
                 "Is anyone looking at this? No reply for two days.", "??"]
FOLLOWUP_THANKS = ["That's sorted it, thanks.", "Working again, cheers {staff}.", "Brilliant, thank you.",
                   "Ok all good now", "Thanks, I'll let the drivers know.",
                   "Thank you for the quick help, dispatch is happy again."]
REPLY_INFO = ["Screenshot attached.", "It's {vehicle}, but there are others too.",
              "I've turned on support access for you.", "The driver is {driver} if that helps.",
              "It was around {time} on {weekday}.", "Our account is the {company} one, depot {depot}."]

STAFF_OPENERS = ["Hi {first},", "Hi {first}, thanks for getting in touch.", "Hello {first},",
                 "Hi {first}, thanks for the detail, that helps.", "Hi {first}, sorry about the hassle with "
                                                                   "this."]
STAFF_SIGNOFFS = ["Thanks,\n{staff}", "Best regards,\n{staff} | Convoya Support", "{staff}",
                  "Cheers,\n{staff}\nConvoya Support", ""]
STAFF_ASKS = [
    "Could you tell me which vehicles are affected (names or registrations) and roughly when it started?",
    "Could you send a screenshot of what you're seeing, with the date range visible?",
    "Would you be happy to turn on support access (Settings > Account > Support access) so I can look at it?",
    "Is this happening across the whole fleet or only some vehicles, drivers or users?",
]
STAFF_HOLDING = [
    "Thanks for the report. I've passed this to our engineering team with your examples and I'll update you "
    "as soon as I hear back.",
    "I'm looking into this now and will come back to you later today.",
    "I can reproduce this on your account. It's escalated internally and I'll keep you posted.",
]
INTERNAL_GENERIC = ["Asked for affected vehicles and a time range.", "Customer enabled support access.",
                    "Checked account settings, nothing obvious yet. Waiting on screenshots.",
                    "Called customer back, left voicemail."]
TAG_EXTRAS = ["bug", "question", "escalated", "how-to", "compliance-risk", "urgent-ops"]
VAGUE_TITLES = ["Problem with Convoya", "URGENT", "Help please", "Not working", "Question", "Issue since "
                                                                                            "update"]

CLUSTERS = [
    {
        "key": "sim-apn-retired",
        "cause": "The SIM partner retired the legacy data APN on 15 September; CT-200 trackers on firmware "
                 "older than 3.6 can't take the new APN over the air and stopped reporting positions",
        "tags": ["tracker", "connectivity", "live-map"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Vehicles offline on the map", "Trackers not reporting since {weekday}",
                   "Half our vans greyed out on live map", "No GPS updates for {vehicle}",
                   "Lost tracking on older trucks", "Devices showing not connected"],
        "symptoms": [
            "About a third of our vans have been grey on the live map since {weekday}. The last position is "
            "from days ago even though they've been out on routes every day.",
            "{vehicle} shows 'No data for 2 days' but the driver has done about 400 km since then. Nothing "
            "wrong with the vehicle as far as we can see.",
            "The trackers on our older trucks stopped sending positions. The newer ones we had fitted this "
            "year are all fine and update every few seconds.",
            "dispatch cant see where half the fleet is. map shows them all parked at the depot where they "
            "were on monday morning",
            "Our customers use the live tracking link and they're asking why the truck hasn't moved for "
            "hours. It has moved, the tracker just isn't reporting.",
            "We power cycled the tracker on {vehicle} by pulling the fuse and it came back for about a "
            "minute and then went offline again. The LED on the box blinks orange.",
            "The device health page lists {nn} units as 'Not connected to network'. They all have the older "
            "grey CT-200 box behind the dash.",
        ],
        "details": [
            "All the affected units are the CT-200 model, the CT-400s are fine.",
            "The vehicles have ignition and the batteries are fine, our mechanic checked.",
            "It started on the same day for all of them, middle of September.",
            "Nobody has been near the trackers, no workshop visits.",
            "The firmware column says 3.4.1 for the ones that are offline.",
        ],
        "errors": ["Last seen 3 days ago (no data session)", "Device status: SIM registered, no data "
                                                             "session"],
        "staff_cause": [
            "Our SIM partner switched off the old data APN the trackers used on 15 September. CT-200 units "
            "on firmware before 3.6 don't know the new APN and couldn't receive it over the air, so they've "
            "gone quiet.",
            "Your offline units are all CT-200s on firmware 3.4. The mobile network retired the APN those "
            "units were configured with, so the SIM still registers but no data connection opens and no "
            "positions come through.",
            "This is on our side, not your vehicles: the legacy data APN was decommissioned in mid-September "
            "and the older CT-200 trackers are still trying to use it.",
        ],
        "internal": [
            "Legacy APN retired 15/09. CT-200 below fw 3.6 stuck. Queued SMS config push for this customer's "
            "units, see HW-611.",
            "Another APN sunset casualty, units on 3.4.1. SMS push worked on most, the rest need an engineer "
            "visit (SMS barred on those SIMs).",
        ],
        "fixes": [
            "We've pushed the new APN to your units by SMS. Most trackers pick it up within an hour of the "
            "next ignition-on; any that haven't reported by tomorrow need an engineer visit, which we'll "
            "book at no cost to you.",
            "We're upgrading the affected units to firmware 3.6 remotely. Please make sure the vehicles are "
            "driven for at least 15 minutes today so the update can finish.",
        ],
        "asks": ["Could you send me the serial numbers or vehicle names of a few trackers that have gone "
                 "offline, and tell me what the LED on the unit is doing?"],
        "near": ["tracker-power-cut", "ignition-sleep-mode"],
    },
    {
        "key": "dst-report-offset",
        "cause": "After the clocks went back on 25 October, the reports service kept the summer-time UTC "
                 "offset for accounts in European time zones: every time in reports is one hour late",
        "tags": ["reports", "time-zone", "timesheets"],
        "priority": ["normal", "high"],
        "titles": ["Report times out by an hour", "Driver start times wrong in activity report",
                   "Geofence arrival times don't match POD", "Working time export one hour off since the "
                                                             "weekend",
                   "Times in reports wrong after clock change"],
        "symptoms": [
            "The driver activity report shows everyone starting an hour later than they actually did. "
            "{driver} started at 6 and the report says 7.",
            "A customer disputed a delivery time. Our report says we arrived at {time} but the signed POD in "
            "the app is an hour earlier. Which one is right?",
            "Since the weekend all the times in the trips report are one hour out. The live map looks right.",
            "the overtime we work out from the working time export is wrong this week, everything shifted by "
            "1 hour",
            "The time on site report says our van got to the {customer_site} after the delivery window "
            "closed, but the driver was there on time, I watched it on the map.",
            "Our scheduled daily report came in this morning and the first trip of the day starts at 07:12 "
            "when the trucks left the yard at 06:12. It was fine last week.",
        ],
        "details": [
            "The account time zone is set to Europe/London.",
            "It's only reports, the map and the driver app show the right time.",
            "I think it started when the clocks changed.",
            "Our other depot in Spain has the same thing with their times.",
        ],
        "staff_cause": [
            "This is a bug in our reports after the clocks went back on 25 October: reports for European "
            "time zones kept the summer-time offset, so every time is shown an hour late.",
            "The live map is right and the report is wrong. The reporting service didn't pick up the end of "
            "summer time, so it's still adding the summer offset to every time.",
            "It's the clock change: our report generator cached your time zone's summer offset and didn't "
            "switch back, which is why everything is exactly one hour out.",
        ],
        "internal": [
            "DST: reports svc cached the UTC offset instead of using tz rules. REP-902. Fix deployed 28/10, "
            "scheduled reports sent 26-28 Oct need re-sending.",
            "Another one-hour-off report, same DST issue, Europe/* account.",
        ],
        "fixes": [
            "The fix was deployed on 28 October. Re-run the report for the affected dates and the times will "
            "be right; scheduled reports sent between the 26th and the 28th can be re-sent from Reports > "
            "Schedules > History.",
            "Reports you run now show the correct times. For the customer's dispute, the POD timestamp in "
            "the app is the accurate one.",
        ],
        "near": ["user-timezone-setting", "tacho-utc"],
    },
    {
        "key": "geofence-swapped-coords",
        "cause": "The geofence editor released on 9 September saves edited polygons with latitude and "
                 "longitude swapped: any polygon geofence edited since then sits in the wrong place and "
                 "never triggers",
        "tags": ["geofences", "alerts", "live-map"],
        "priority": ["normal", "high"],
        "titles": ["Geofence alerts stopped working", "No arrival alerts for {customer_site}",
                   "Geofence not triggering", "Time on site report empty for a customer",
                   "Zone alerts missing since I changed the zone"],
        "symptoms": [
            "We're not getting the arrival email when our trucks reach the {customer_site} any more. The "
            "zone is drawn around the whole yard and the trucks definitely go in.",
            "I redrew the geofence for {depot} last week because we extended the yard, and since then there "
            "have been no enter or exit alerts for it at all.",
            "The time on site report shows zero visits for our main customer this month. Last month it had "
            "hundreds.",
            "Some of our geofences work and some don't. As far as I can tell the broken ones are the ones "
            "we've edited recently.",
            "When I click the geofence in the list the map jumps to somewhere in the sea off Africa and then "
            "back. Odd. Also no alerts from that zone.",
            "Our customer gets an automatic 'driver arriving' message from the geofence and they say they "
            "haven't had one for two weeks.",
        ],
        "details": [
            "The alert rule hasn't changed and the recipients are the same.",
            "The geofence looks correct on the map when I open it to edit.",
            "The older zones we haven't touched still alert fine.",
            "I deleted the alert and made it again, no difference.",
        ],
        "staff_cause": [
            "Our new geofence editor has a bug: when you save an edited polygon it stores latitude and "
            "longitude the wrong way round. The zone displays fine in the editor, but the alert engine "
            "checks the swapped coordinates, so no vehicle ever enters it.",
            "Any polygon geofence saved after our 9 September update had its coordinates flipped, which puts "
            "the zone in a completely different part of the world. That's why alerts from recently edited "
            "zones stopped.",
        ],
        "internal": [
            "Geofence editor lat/lng swap (GEO-338). Ran repair script on this customer's geofences edited "
            "after 09/09.",
            "Swapped-coords geofence again. Customer noticed the map jumping to the Gulf of Guinea, that's "
            "the tell.",
        ],
        "fixes": [
            "We've run a repair on all your geofences saved since 9 September and alerts are working again. "
            "Visits during the gap can't be re-created, sorry.",
            "Until the fix is out, please avoid editing polygon geofences; if you need a new zone, a circle "
            "geofence isn't affected.",
        ],
        "near": ["alert-recipient-unsubscribed", "geofence-too-small"],
    },
    {
        "key": "pod-photos-android-cache",
        "cause": "Android driver app 5.3.0 keeps proof-of-delivery photos taken without signal in the cache "
                 "folder, which Android clears when storage runs low: those photos are never uploaded",
        "tags": ["driver-app", "proof-of-delivery", "android"],
        "priority": ["high", "normal", "high"],
        "titles": ["POD photos missing", "Delivery photos not uploading", "Signature there but no photo",
                   "Missing proof of delivery images", "Driver took photos but they're not in the system"],
        "symptoms": [
            "Several deliveries from yesterday have the signature but no photo, the POD just says 'photo "
            "missing'. The drivers swear they took them.",
            "A customer is disputing a delivery from {date} and we have no photo of the parcel at the door, "
            "which is the whole reason we pay for POD.",
            "Our drivers on the rural routes keep losing their delivery photos. The ones doing town work are "
            "fine.",
            "pictures from the app are gone for some jobs. driver showed me his phone, app said saved at the "
            "time",
            "It's only our Android drivers. The two lads with iPhones never have missing photos.",
            "We get a few jobs every day where the POD record says '0 of 2 photos uploaded' and it never "
            "changes, even after the driver is back on the depot wifi.",
        ],
        "details": [
            "The phones are the cheap Samsungs we issue and they're quite full.",
            "They updated the app last week when it asked them to.",
            "It seems to be when there's no signal at the drop.",
            "Signatures and notes come through fine.",
        ],
        "errors": ["Attachment pending (0 of 2 uploaded)", "Photo file not found on device"],
        "staff_cause": [
            "Version 5.3.0 of the Android app changed where photos taken without signal are kept until they "
            "can upload. It's a temporary folder Android is allowed to empty when the phone is short of "
            "space, so on fuller phones the photos vanish before they sync.",
            "The missing photos were all taken while the driver was offline, and the 5.3.0 Android app "
            "stored them somewhere the phone cleans up automatically. Signatures are small and stored "
            "differently, which is why those still arrive.",
        ],
        "internal": [
            "5.3.0 Android: offline photo queue in cacheDir (MOB-1290). 5.3.2 moves it back. Cleared photos "
            "are unrecoverable.",
            "Another 5.3.0 missing POD photos, low-storage devices.",
        ],
        "fixes": [
            "Version 5.3.2 fixes this and is rolling out on Google Play now, so please ask drivers to "
            "update. Unfortunately photos that were already cleared from a phone can't be recovered.",
            "Until your drivers are on 5.3.2, ask them to open the app as soon as they have signal so the "
            "queue uploads, and to free up some storage on the phones.",
        ],
        "near": ["camera-permission-denied", "job-type-photo-optional"],
        "near_clusters": ["dvir-heic-defects"],
    },
    {
        "key": "webhook-timeout-duplicates",
        "cause": "On 1 October the webhook delivery timeout was cut from 30 to 5 seconds: slower endpoints "
                 "are marked failed and retried, so customers' systems receive the same event several times",
        "tags": ["api", "webhooks", "integration"],
        "priority": ["high", "normal"],
        "titles": ["Duplicate webhook events", "Our TMS getting delivery confirmations twice",
                   "job.completed webhook fired 3 times", "Webhook log shows timeouts but we returned 200",
                   "Invoices raised twice from your webhooks"],
        "symptoms": [
            "Our order system is receiving the job.completed webhook two or three times for the same "
            "delivery. It's creating duplicate invoices.",
            "The webhook log under developer settings says 'timeout' for loads of deliveries, but our server "
            "logs show we got the request and returned 200.",
            "Since early October our integration sees repeated stop status updates for the same stop, "
            "identical payloads a minute or so apart.",
            "We use webhooks to push PODs into our ERP and now each POD is attached 2-4 times to the order. "
            "Nothing changed in our code.",
            "Our developer says your side is hammering our endpoint with retries. Traffic from your IPs "
            "roughly tripled this month.",
            "The tracking portal we built for our clients shows some consignments as delivered twice, with "
            "two delivery times a few minutes apart.",
        ],
        "details": [
            "Our endpoint takes a few seconds because it writes to SAP before responding.",
            "The X-Event-Id header is the same on the duplicates.",
            "It started around the beginning of October.",
            "Polling the API gives the correct single status.",
        ],
        "errors": ["Delivery failed: timeout after 5000 ms (retry 1 of 5)", "attempt 2/5: no response within "
                                                                            "5s"],
        "staff_cause": [
            "We reduced the webhook delivery timeout from 30 seconds to 5 seconds on 1 October. Your "
            "endpoint answers after more than 5 seconds, so we treat the delivery as failed and retry, even "
            "though your server did receive it.",
            "The duplicates are our retries: since the 1 October change we only wait 5 seconds for a "
            "response, and your endpoint takes longer than that to send its 200.",
        ],
        "internal": [
            "Webhook timeout 30s -> 5s shipped without notice (INT-455). Raising to 15s; customers should "
            "dedupe on event id.",
            "Same webhook duplicates, their endpoint p95 about 8s.",
        ],
        "fixes": [
            "We've raised the timeout to 15 seconds for all accounts. We'd still recommend answering the "
            "webhook straight away and doing the processing afterwards, and ignoring any event whose "
            "X-Event-Id you've already seen.",
            "Every retry carries the same X-Event-Id, so your system can safely drop an event it has already "
            "processed.",
        ],
        "asks": ["Could you send the X-Event-Id of two or three duplicated events, and the response time "
                 "your endpoint logged for them?"],
        "near": ["webhook-cert-expired", "api-rate-limit"],
    },
    {
        "key": "eld-split-sleeper",
        "cause": "The hours-of-service engine in release 2026.9 doesn't pair a 7-hour sleeper berth period "
                 "with the following 3-hour off-duty break: drivers using the 7/3 split get false 11- and "
                 "14-hour violations",
        "tags": ["eld", "hours-of-service", "compliance"],
        "priority": ["high", "urgent"],
        "titles": ["False HOS violations for split sleeper", "ELD showing violation that isn't one",
                   "Drive clock wrong after sleeper berth", "Split sleeper not being recognized",
                   "Driver out of hours on the app but he's legal"],
        "symptoms": [
            "Our team drivers who run a 7/3 split are getting 14 hour violations on the ELD even though they "
            "took the full break.",
            "{driver} did 7 hours in the sleeper and then 3 off duty and the app still shows his drive time "
            "at zero. He's sat at a truck stop burning hours.",
            "The HOS clocks don't seem to understand split sleeper any more. 8/2 works, 7/3 doesn't.",
            "We got a pile of violations on the compliance dashboard this week, all drivers who split their "
            "break. Our safety manager thinks they're wrong.",
            "Driver was told by the app he had no drive time left, called dispatch, we checked his logs by "
            "hand and he had 4 hours.",
            "I'm worried about roadside inspections. If an officer looks at the screen it shows a violation "
            "that didn't happen.",
        ],
        "details": [
            "It started after the app updated last week.",
            "The logs look right, the duty statuses are all there.",
            "Drivers who take a normal 10 hour break are fine.",
            "We're on the property-carrying 70 hour / 8 day rules.",
        ],
        "errors": ["Violation: 14-hour limit exceeded", "11-hour driving limit exceeded"],
        "staff_cause": [
            "The hours-of-service engine in our 2026.9 release stopped pairing a 7-hour sleeper berth period "
            "with the 3-hour off-duty break after it. The clocks treat them as two unrelated breaks, so the "
            "driver looks out of hours when they're not.",
            "The violations are false: a bug in release 2026.9 means the 7/3 split sleeper combination isn't "
            "recognised, while 8/2 still is. The driver's log records are correct; only the clock "
            "calculation is wrong.",
        ],
        "internal": [
            "HOS 2026.9 regression, 7/3 pairing broken (ELD-207). Hotfix 2026.9.2. Violations need "
            "recalculation, not log edits.",
            "Split sleeper false violations - recalculated for customer after hotfix.",
        ],
        "fixes": [
            "Hotfix 2026.9.2 is out; once drivers update the app their clocks recalculate. We've also re-run "
            "the calculation for your past two weeks, which removes the false violations from the compliance "
            "dashboard.",
            "If a driver is inspected before updating, their log records are correct and can be shown to the "
            "officer; the violation is a calculation only. Please don't edit the logs to make it go away.",
        ],
        "near": ["unassigned-driving", "personal-conveyance-yard"],
    },
    {
        "key": "tacho-smart2-auth",
        "cause": "Remote tachograph downloads fail for second-generation version 2 (smart tachograph 2) "
                 "vehicle units: the download service still authenticates with the first-generation "
                 "certificate chain",
        "tags": ["tachograph", "remote-download", "compliance"],
        "priority": ["high", "normal"],
        "titles": ["Remote tacho download failing", "Vehicle unit downloads overdue",
                   "Tachograph RDL not working on new trucks", "VU download error", "Tacho download failing "
                   "for {vehicle}"],
        "symptoms": [
            "The remote tacho downloads for our new trucks keep failing. The older trucks download every "
            "week with no problem.",
            "The compliance page shows {nn} vehicles with the vehicle unit download overdue. They're all the "
            "2025 registered trucks with the new smart tachograph.",
            "Driver card downloads come through fine for everyone, but the VU download on {vehicle} fails "
            "every time at the authentication step.",
            "We have an inspection coming and I'm missing 90 days of VU data for our newest vehicles. Can "
            "you help urgently?",
            "Our tacho analysis software hasn't received a single .DDD file for the new lorries since they "
            "arrived. We thought it was the installation at first.",
            "Remote download stops with error for trucks with DTCO 4.1. The old ones with 3.0 works.",
        ],
        "details": [
            "Our company card is in the card hub and it's valid until 2028.",
            "It's the VDO DTCO 4.1 units, the older tachographs are fine.",
            "We can download manually with the key in the cab.",
            "The trucks arrived in the spring and have never downloaded remotely.",
        ],
        "errors": ["RDL failed: authentication error (card response 6A88)",
                   "Remote download aborted at mutual authentication"],
        "staff_cause": [
            "The newer smart tachographs (second generation, version 2, such as the DTCO 4.1) use a newer "
            "certificate chain, and our remote download service was still authenticating with the "
            "first-generation one. The download stops at authentication before any data is read.",
            "The failures are all on smart tachograph 2 units. Our download service didn't support their "
            "authentication yet, so the vehicle unit refuses the session. Your company card is fine.",
        ],
        "internal": [
            "Gen2v2 VU auth not supported by RDL service (TCH-88). Fix in staged rollout; customer added to "
            "early group.",
            "Smart tacho 2 RDL failures again, 6A88 at mutual auth. Company card OK.",
        ],
        "fixes": [
            "Our download service now supports the smart tachograph 2 certificates. The overdue downloads "
            "are queued and will run the next time each truck's ignition is on with your company card "
            "available in the hub.",
            "Until the update reaches your account, a manual download with a download key keeps you within "
            "the 90-day limit, and you can upload the files under Tachograph > Files.",
        ],
        "near": ["company-card-expired", "driver-card-not-seen"],
    },
    {
        "key": "fuel-decimal-comma",
        "cause": "The new v3 transaction feed from DKV and UTA sends quantities with a decimal comma, which "
                 "the fuel card importer reads as a thousands separator: a 45,67 litre fill is recorded as "
                 "4,567 litres",
        "tags": ["fuel-cards", "fuel", "import"],
        "priority": ["normal", "high"],
        "titles": ["Fuel report showing crazy numbers", "Fuel theft alerts on every fill",
                   "Fuel consumption figures impossible", "Fuel card import wrong litres",
                   "{vehicle} used 5000 litres?"],
        "symptoms": [
            "The fuel report says {vehicle} took on 4,812 litres in one fill-up. The tank is 400 litres.",
            "We are getting a 'fill exceeds tank capacity' alert on nearly every fuel transaction since the "
            "weekend.",
            "Cost per km is fine but the litres column is nonsense, consumption comes out at something like "
            "1,500 l/100km.",
            "Our fuel card transactions from DKV all look a hundred times too big on the volume. The Shell "
            "ones are normal.",
            "fuel efficiency on the driver scorecards shows everyone at 0.2 mpg. drivers think its funny, "
            "the boss doesnt",
            "The fuel anomalies list has {nn} entries this week, usually we get one or two. They all look "
            "like decimal point problems.",
        ],
        "details": [
            "The amounts in euro are correct, only the quantity is wrong.",
            "It's only the DKV and UTA transactions, which are the cards we use on the continent.",
            "The provider's own portal shows the correct litres.",
            "It started when you emailed us about the new fuel card connection.",
        ],
        "errors": ["Fill volume 4567 L exceeds tank capacity 400 L"],
        "staff_cause": [
            "DKV and UTA moved to a new version of their transaction feed, which writes quantities with a "
            "comma as the decimal mark. Our importer read the comma as a thousands separator, so 45,67 "
            "litres became 4,567.",
            "It's the litres only: the new DKV/UTA feed uses decimal commas and our import misread them, "
            "inflating every volume by a factor of about a hundred. Amounts are in a separate field, which "
            "is why the cost is right.",
        ],
        "internal": [
            "Fuel importer locale bug on DKV/UTA v3 feed (FUEL-141). Re-import after fix; clear anomaly "
            "alerts.",
            "Decimal comma litres again. Re-imported from 02/10.",
        ],
        "fixes": [
            "The importer is fixed and we've re-imported your DKV and UTA transactions since 2 October with "
            "the right volumes. The anomaly alerts those imports raised have been cleared.",
            "Once the re-import is done, the consumption figures and driver scorecards recalculate "
            "overnight.",
        ],
        "near": ["fuel-card-wrong-vehicle", "tank-capacity-wrong"],
    },
    {
        "key": "route-import-ampm",
        "cause": "The stop importer drops delivery time windows written in 12-hour format (such as '2:00 "
                 "PM'): the optimiser plans those stops with no window at all",
        "tags": ["route-planning", "import", "time-windows"],
        "priority": ["normal", "high"],
        "titles": ["Route optimiser ignoring delivery windows", "Stops planned outside time windows",
                   "Time windows not respected after import", "Drivers arriving too early at customers",
                   "Delivery slots ignored by route planning"],
        "symptoms": [
            "Our routes have drivers turning up at customers hours before their booked slot. The slot is in "
            "the import file.",
            "The optimiser is putting a stop with a 2pm-4pm window first thing in the morning. When I create "
            "the stop by hand with the same window it plans it correctly.",
            "Customers are complaining that we deliver outside the slot they booked online. It started when "
            "we began importing orders from the new webshop export.",
            "In the import preview I can see the time window column, but after import the stop details say "
            "'No time window'.",
            "Drivers are waiting outside the {customer_site} because the plan gets them there before it "
            "opens. That's an hour wasted every day.",
            "We imported tomorrow's routes from the CSV and all the AM/PM slots are gone. The stops that had "
            "14:00-16:00 kept theirs.",
        ],
        "details": [
            "Our CSV has the windows like '9:00 AM' and '1:00 PM'.",
            "It's only imported stops, ones added manually are fine.",
            "We switched to exporting from the new webshop in September.",
            "The file opens fine in Excel and the times look right.",
        ],
        "errors": ["Import completed with 0 errors, 37 warnings",
                   "Warning: time_window_start could not be parsed, ignored"],
        "staff_cause": [
            "The stop importer only understands 24-hour times. Windows written as '2:00 PM' can't be read, "
            "so they are dropped with a warning and the optimiser treats those stops as having no time "
            "window.",
            "Your new webshop export writes the windows in 12-hour format with AM/PM, which our importer "
            "currently ignores. The stops come in without a window, so the optimiser is free to put them "
            "anywhere in the day.",
        ],
        "internal": [
            "Importer doesn't parse AM/PM times (RTE-377). Drops to warning only. Fix scheduled; workaround "
            "24h.",
            "AM/PM windows lost on import again.",
        ],
        "fixes": [
            "Changing the time columns in your file to 24-hour format (14:00 rather than 2:00 PM) fixes it "
            "straight away. We're also fixing the importer to accept AM/PM.",
            "Re-import the affected stops after converting the times and re-optimise; the windows will then "
            "be respected.",
        ],
        "near": ["default-service-time", "max-shift-length"],
    },
    {
        "key": "dashcam-chunk-timeout",
        "cause": "Dashcam firmware DC-2.7 uploads requested clips in 8 MB chunks, which time out on ordinary "
                 "4G connections: footage requests sit at 'Requested' and then fail",
        "tags": ["dashcam", "video"],
        "priority": ["high", "normal"],
        "titles": ["Can't get dashcam footage", "Video request failed", "Dashcam clip stuck on requested",
                   "Need footage for insurance claim - download fails", "Harsh braking videos not available"],
        "symptoms": [
            "We had a minor collision on {date} and I requested the footage from {vehicle}'s camera. It sat "
            "on 'Requested' all day and then went to 'Failed'.",
            "Event videos for harsh braking used to appear within a few minutes. Now the event shows up but "
            "there's no video.",
            "Live view works, I can see the road from the camera, but when I ask for a 30 second clip it "
            "never arrives.",
            "The insurer is asking for the video of an incident and I can't get it out of the system. It "
            "keeps failing.",
            "Video requests work for some trucks and not others. The ones parked in the yard on wifi get "
            "there eventually.",
            "We tried a shorter clip, 10 seconds, and that one did come through. Anything longer fails.",
        ],
        "details": [
            "The cameras updated themselves recently, firmware says DC-2.7.",
            "The truck was on the motorway with normal signal.",
            "The SD card is fine, the driver can play the video back on the screen in the cab.",
            "Our older cameras are still on DC-2.5 and those work.",
        ],
        "errors": ["Video retrieval failed: device upload timeout", "Clip request status: Failed (upload "
                                                                    "timed out)"],
        "staff_cause": [
            "Firmware DC-2.7 on the dashcams changed how requested clips are uploaded, in much larger "
            "pieces. On a normal 4G connection each piece takes too long and the upload times out, so the "
            "request fails. Short clips are small enough to get through.",
            "The failing requests are all on cameras running DC-2.7. That firmware's upload settings don't "
            "cope with mobile data, so clips only make it over wifi or a very strong signal.",
        ],
        "internal": [
            "DC-2.7 8MB chunks vs 4G uploader timeout (CAM-260). Rolling back to DC-2.6 config on affected "
            "devices.",
            "Dashcam clip timeouts, DC-2.7 again. Footage still on SD, retry after config push.",
        ],
        "fixes": [
            "We've pushed a settings update to your DC-2.7 cameras that brings the upload size back down. "
            "Please request the clip again; the footage is still on the SD card as long as it hasn't been "
            "overwritten.",
            "If you need the incident footage today, the driver can export it from the camera's SD card, but "
            "a fresh request should work now the settings have been updated.",
        ],
        "near": ["dashcam-loop-overwritten", "dashcam-privacy-mode"],
        "near_clusters": ["sim-apn-retired"],
    },
    {
        "key": "sso-group-spaces",
        "cause": "Since the 6 October single sign-on update, the role from the identity provider's group "
                 "claim is re-applied at every sign-in and group names with spaces don't match the role "
                 "mapping: those users are reset to Viewer each time",
        "tags": ["sso", "permissions", "users"],
        "priority": ["high", "normal"],
        "titles": ["Dispatchers lost access", "User role keeps changing back to Viewer",
                   "Permission denied on dispatch board", "SSO users downgraded", "Admin rights "
                                                                                  "disappearing"],
        "symptoms": [
            "Every morning our planners log in and can't see the dispatch board. I change them back to "
            "Dispatcher and by the next day they're Viewer again.",
            "Several of our users get 'You don't have permission to view this page' when they try to assign "
            "jobs. Yesterday they were fine.",
            "Our transport planners can only see the map, not the routes. Their role says Viewer but I never "
            "set that.",
            "I'm the IT admin. Users in our 'Transport Planners' group lose their role on every sign-in, "
            "users in 'Dispatch' don't.",
            "Since around the 6th, people signing in with SSO get reset to read-only. Users with a password "
            "login keep their roles.",
            "the planners cant create routes anymore, says no permission. they log in with the microsoft "
            "button",
        ],
        "details": [
            "The group to role mapping in your settings says Transport Planners -> Dispatcher, it hasn't "
            "changed.",
            "We send the groups claim from our identity provider.",
            "Users who sign in with a username and password are fine.",
            "The audit log says 'role changed by SSO' at each sign-in.",
        ],
        "errors": ["You don't have permission to view this page", "Role changed by SSO: Dispatcher -> "
                                                                  "Viewer"],
        "staff_cause": [
            "Our 6 October sign-on update started re-applying the role from your identity provider's groups "
            "every time someone signs in, and group names containing spaces aren't matched against your "
            "mapping. Those users fall back to the default role, Viewer.",
            "It's the space in 'Transport Planners': since the 6 October change the mapping lookup fails for "
            "group names with spaces, and because roles are now refreshed at each sign-in, your manual fix "
            "is undone the next morning.",
        ],
        "internal": [
            "SSO group claim with spaces not matched after AUTH-301 (role sync on every login). Fix "
            "AUTH-318.",
            "Viewer downgrade loop, group name with space. Suggested disabling role sync until fix.",
        ],
        "fixes": [
            "A fix for group names with spaces went out today. Ask the affected users to sign out and back "
            "in and they'll get their mapped role.",
            "As a workaround, switch off 'Update role at every sign-in' under Settings > Single sign-on and "
            "set the roles by hand; they'll then stay put.",
        ],
        "near": ["saml-cert-rotated", "depot-scope-restricted"],
    },
    {
        "key": "schedule-old-group-ids",
        "cause": "Scheduled reports created before the August reports revamp still filter by the old vehicle "
                 "group ids, which no longer match anything: they are emailed with column headers only",
        "tags": ["reports", "scheduled-export", "email"],
        "priority": ["normal", "low", "normal"],
        "titles": ["Scheduled report arriving empty", "Weekly mileage export has no data",
                   "Report email blank since September", "Scheduled CSV only has column headers",
                   "{report} report empty"],
        "symptoms": [
            "The weekly mileage report that goes to our accounts team every Monday came through with only "
            "the column headings. Running it manually in the portal gives all the data.",
            "Our scheduled {report} export has been empty for three weeks. Nobody noticed until payroll "
            "asked for the hours.",
            "Every scheduled report we set up last year arrives blank, but a schedule I created yesterday "
            "works fine.",
            "the csv we get every morning has 0 rows. vehicles are definitely driving",
            "Our customer receives a daily delivery report from us automatically, and they've complained "
            "it's been empty since the start of September.",
            "When I open the schedule to edit it the vehicle group field is blank, but the group itself "
            "still has all the vans in it.",
        ],
        "details": [
            "The schedule is filtered to our 'Refrigerated' vehicle group.",
            "The email arrives on time, it's just empty.",
            "We haven't deleted or renamed any groups.",
            "It's been like this since about when the reports page got its new look.",
        ],
        "errors": ["0 rows returned for the selected filters"],
        "staff_cause": [
            "When we rebuilt reports in August, vehicle groups got new internal ids, but schedules created "
            "before then still point at the old ones. The filter matches no vehicles, so the report is sent "
            "with headers and no rows.",
            "Your schedule predates our reports update and its vehicle group filter refers to a group id "
            "that no longer exists. That's why the editor shows the field blank and the email is empty.",
        ],
        "internal": [
            "Pre-revamp schedules reference legacy group ids (REP-871). Migrated this customer's schedules.",
            "Empty scheduled report, old group id. Fixed by migration script.",
        ],
        "fixes": [
            "I've migrated your existing schedules to the new group ids, so next week's emails will have "
            "data. To get the missing weeks, run the report for those dates from Reports and export it.",
            "If you'd rather fix it yourself, open each schedule, pick the vehicle group again and save it.",
        ],
        "near": ["vehicle-group-emptied", "report-attachment-too-large"],
        "near_clusters": ["dst-report-offset"],
    },
    {
        "key": "odometer-gps-fallback",
        "cause": "Tracker firmware 4.9.0 falls back to GPS distance when the CAN odometer message drops out "
                 "and then restarts from an old stored value: odometers drift far below the dashboard and "
                 "distance-based service reminders go wrong",
        "tags": ["maintenance", "odometer", "tracker"],
        "priority": ["normal", "high"],
        "titles": ["Odometer wrong in Convoya", "Service reminders wrong", "Mileage doesn't match dashboard",
                   "Odometer went backwards on {vehicle}", "Service due alerts way off"],
        "symptoms": [
            "The odometer for {vehicle} in the system is about 6,000 km lower than the dash. It was spot on "
            "last month.",
            "We're getting service due alerts far too late. One van went 4,000 miles over its oil change "
            "interval before the reminder fired.",
            "The vehicle list shows odometer readings going down from one day to the next on some trucks. "
            "How can an odometer go backwards?",
            "Our maintenance planner is all over the place, it predicts the next service months away for "
            "vehicles that are due now.",
            "The mileage for the lease return report doesn't match what the lease company read off the "
            "dashboards, we're under by thousands.",
            "Trip distances look fine but the odometer total doesn't add up, as if it reset at some point in "
            "September.",
        ],
        "details": [
            "These vehicles have the CAN connection, not just GPS.",
            "The firmware on the affected units says 4.9.0.",
            "I corrected the odometer by hand last week and it has drifted again already.",
            "It's mostly the Ford Transits.",
        ],
        "staff_cause": [
            "Firmware 4.9.0 on the trackers switches to GPS-measured distance whenever the odometer message "
            "from the vehicle's CAN bus drops out for a moment, and when it does it restarts from an old "
            "stored reading. Each drop-out loses distance, so the odometer falls further behind the "
            "dashboard.",
            "It's a tracker firmware fault rather than your settings: version 4.9.0 mishandles short gaps in "
            "the CAN odometer and resets to a stale value, which is why readings even go backwards and the "
            "service reminders based on distance are out.",
        ],
        "internal": [
            "fw 4.9.0 CAN odo fallback bug (HW-640). 4.9.3 fixes. Customer needs to re-enter odo after "
            "update.",
            "Odometer drift on Transits, 4.9.0. Pushed 4.9.3.",
        ],
        "fixes": [
            "Firmware 4.9.3 fixes the fallback and is rolling out to your units over the next few days. "
            "After that, enter the dashboard reading once under Vehicle > Odometer and it will stay in step.",
            "Once the odometer is corrected, service reminders recalculate automatically; anything now "
            "overdue will show as due straight away.",
        ],
        "near": ["odometer-initial-value", "engine-hours-schedule"],
        "near_clusters": ["driver-fob-byte-order"],
    },
    {
        "key": "dvir-heic-defects",
        "cause": "iOS driver app 5.2.x drops defect items that have a HEIC photo attached when it creates "
                 "the workshop defect: the check is saved as 'defects reported' but no defect reaches the "
                 "workshop",
        "tags": ["vehicle-checks", "defects", "ios"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Defects from walkaround checks not showing", "Driver reported defect but workshop never "
                                                                 "got it",
                   "DVIR defect missing", "Vehicle check says defects but defect list empty",
                   "Defect not created from daily check"],
        "symptoms": [
            "{driver} reported a cracked mirror on his morning check with a photo. The check says 'Defects "
            "reported' but there's nothing in the defects list and the workshop never got an email.",
            "Our workshop manager only found out about a broken indicator when the driver mentioned it at "
            "the end of the week. It was on the check on Monday.",
            "The walkaround check PDF shows the defect and the photo, but the defect board is empty for that "
            "vehicle.",
            "This is a compliance problem for us, defects have to be dealt with before the vehicle goes out "
            "and we can't rely on the checks now.",
            "Defects reported without a photo come through to the workshop, the ones with a photo don't. "
            "Seems backwards.",
            "The DVIRs from our iPhone drivers have no defects on the mechanic's screen, so there's nothing "
            "for him to certify as repaired.",
        ],
        "details": [
            "The drivers affected are on iPhones.",
            "It started in the last couple of weeks.",
            "The check itself uploads straight away.",
            "Defects from the Android drivers come through fine.",
        ],
        "staff_cause": [
            "The iOS app 5.2 has a bug with photos in the HEIC format iPhones use by default: when a defect "
            "has one attached, the app saves the check but the defect item isn't created for the workshop.",
            "It's the iPhone photo format. On iOS app 5.2, a defect with a HEIC photo is kept on the check "
            "PDF but dropped when the defect itself is created, so the workshop is never told.",
        ],
        "internal": [
            "iOS 5.2.x HEIC attachment breaks defect creation (MOB-1302). 5.2.6 converts to JPEG. Backfilled "
            "defects from checks.",
            "Missing defects, iOS + photo. Backfill script run for customer.",
        ],
        "fixes": [
            "We've created the missing defects from the checks submitted since the update, so they're now on "
            "your defect board; please review them today. iOS app 5.2.6 fixes it for new checks.",
            "Until drivers have 5.2.6, they can set the iPhone camera to 'Most Compatible' under Settings > "
            "Camera > Formats, which avoids HEIC.",
        ],
        "near": ["defect-notification-recipients", "minor-defect-no-workorder"],
        "near_clusters": ["pod-photos-android-cache"],
    },
    {
        "key": "sms-sender-unregistered",
        "cause": "After the SMS provider switch on 12 October, UK messages go over a route that requires a "
                 "registered alphanumeric sender ID; unregistered sender names are filtered by EE and "
                 "Vodafone, so ETA texts never arrive",
        "tags": ["notifications", "sms", "eta"],
        "priority": ["normal", "high"],
        "titles": ["Customers not getting ETA texts", "Delivery notification SMS not arriving",
                   "On my way texts missing", "SMS notifications stopped for some customers",
                   "End customers say no text from us"],
        "symptoms": [
            "Our customers say they don't get the 'your driver is on the way' text any more. The emails "
            "still arrive.",
            "The SMS log in Convoya says 'Sent' for all of them but customers swear they got nothing.",
            "Some customers get the ETA text and some don't. I tested with my own phone and got nothing, my "
            "colleague on O2 got it.",
            "Since mid October we've had more failed deliveries because nobody's home, and it turns out the "
            "notification texts aren't going out.",
            "We've used our company name as the text sender for two years without a problem and now most "
            "texts don't arrive.",
            "ETA texts not delivered to customers on EE. The delivery report shows 'undelivered' for loads "
            "of them.",
        ],
        "details": [
            "Our sender name is our company name, it's been the same for years.",
            "Email notifications are fine.",
            "It seems to be UK mobile numbers only.",
            "We haven't run out of SMS credits, I checked.",
        ],
        "errors": ["Status: Undelivered (carrier filtered)", "DLR: rejected - sender ID not registered"],
        "staff_cause": [
            "We changed SMS provider on 12 October, and the new route for UK numbers only delivers texts "
            "from sender names that are registered with the networks. Yours wasn't carried over to the "
            "register, so EE and Vodafone filter the texts out.",
            "Your texts are being blocked by some UK networks because the sender name isn't on the new "
            "provider's registered list. That's our migration, not your settings.",
        ],
        "internal": [
            "SMS route change 12/10, sender IDs not pre-registered (NTF-54). Submitted registration for "
            "customer.",
            "Another EE/Vodafone filtered sender ID. Registration pending, falling back to numeric sender.",
        ],
        "fixes": [
            "We've registered your sender name; registration takes up to two working days. Until then your "
            "texts go from our numeric sender so they'll be delivered, just without your name on them.",
            "It's fixed: your sender name is registered and the texts are being delivered again.",
        ],
        "near": ["phone-missing-country-code", "sms-credits-exhausted"],
    },
    {
        "key": "driver-fob-byte-order",
        "cause": "Tracker firmware 4.9.2 reads driver ID key fobs in reversed byte order on CT-400 units: "
                 "trips are logged with an unknown driver and fob-linked immobilisers don't release",
        "tags": ["driver-id", "tracker", "drivers"],
        "priority": ["high", "normal"],
        "titles": ["Trips showing unknown driver", "Driver ID fobs not recognised", "Driver scorecards empty",
                   "Key fob not working on tracker", "Drivers not assigned to trips"],
        "symptoms": [
            "All trips since {weekday} show 'Unknown driver'. The drivers tap their fobs on the reader like "
            "always and it beeps.",
            "The driver league table is blank for this week. Nobody has any trips.",
            "The 'no driver ID' alert fires for every vehicle as soon as it starts, even when the driver has "
            "tapped in.",
            "When I look at the raw events the fob ID looks scrambled, like the right digits in a different "
            "order.",
            "We use the fobs to work out who was driving which van for speeding fines. Now we can't tell.",
            "The immobiliser on two vans won't release because it doesn't recognise the driver's key. "
            "They're stuck in the yard.",
        ],
        "details": [
            "It's the vans with the newer black tracker (CT-400).",
            "The fobs are registered against the drivers in the driver list, nothing has changed there.",
            "I think the trackers updated overnight.",
            "Signing in on the driver app still assigns the driver.",
        ],
        "errors": ["Unknown driver (ID not registered)", "Driver ID not recognised: key {ref}"],
        "staff_cause": [
            "Firmware 4.9.2 for the CT-400 tracker reads the ID from the key fob with its bytes in reverse "
            "order. The reversed ID doesn't match any registered fob, so the trip has no driver and the "
            "immobiliser stays locked.",
            "Your fobs are fine and correctly registered. The trackers' 4.9.2 update reads them back to "
            "front, which is why the raw ID looks scrambled.",
        ],
        "internal": [
            "fw 4.9.2 iButton byte order (HW-652). Rolled back to 4.9.1 for customer; reassigning trips from "
            "app logins where possible.",
            "Unknown driver + immobiliser, 4.9.2 again. Emergency rollback.",
        ],
        "fixes": [
            "We've rolled your CT-400s back to firmware 4.9.1, so fobs work again from the next ignition-on. "
            "For the affected trips, you can assign the driver under Trips > Assign driver; we can also "
            "bulk-assign from your rota if you send it.",
            "For the vans stuck in the yard, the immobiliser can be released remotely from Vehicle > "
            "Immobiliser > Release, which we've enabled for your admins.",
        ],
        "near": ["fob-not-registered", "vehicle-no-reader"],
    },
]

NEAR_MISSES = [
    {"key": "tracker-power-cut", "cause": "The tracker's power feed was disconnected during workshop work",
     "tags": ["tracker", "connectivity"], "titles": ["One van vanished from the map", "Tracker offline after "
                                                                                      "service"],
     "symptoms": ["{vehicle} disappeared from the live map yesterday afternoon and hasn't come back. The "
                  "rest of the fleet is fine.",
                  "One of our trucks has been grey on the map since it came back from the garage. No "
                  "positions at all."],
     "errors": ["Tamper alert: main power disconnected"],
     "staff_cause": ["The unit reported losing main power at 14:02, right after it went into the workshop, "
                     "and ran on its backup battery until that was flat. It looks like the power feed was "
                     "disconnected during the work and not reconnected."],
     "fixes": ["Ask the garage to check the tracker's power and ignition wires behind the dash; it'll report "
               "again as soon as it has power."]},
    {"key": "ignition-sleep-mode", "cause": "Parked vehicles with ignition off report every 4 hours (sleep "
                                            "mode)",
     "tags": ["tracker", "live-map"], "titles": ["Trucks not updating on map at weekend"],
     "symptoms": ["Several trucks show their last update as hours ago on the live map. They're parked up in "
                  "the yard for the weekend, is that normal or are the trackers dying?"],
     "staff_cause": ["That's expected: with the ignition off, trackers go into sleep mode and send a "
                     "position every 4 hours to protect the vehicle battery. They'll report every few "
                     "seconds again as soon as the ignition is on."]},
    {"key": "user-timezone-setting", "cause": "One user's personal time zone is set to a different zone",
     "tags": ["reports", "time-zone"], "titles": ["Report times wrong for me only"],
     "symptoms": ["Times in the trip reports are one hour out for me, but my colleague running the same "
                  "report sees the right times."],
     "staff_cause": ["Your user profile has its own time zone set to Europe/Paris, which overrides the "
                     "account's time zone for your reports. Your colleague uses the account default."],
     "fixes": ["Change it under your profile > Preferences > Time zone, or choose 'Use account time zone'."]},
    {"key": "tacho-utc", "cause": "Tachograph activity data is recorded in UTC, by regulation",
     "tags": ["tachograph", "time-zone"], "titles": ["Tacho times don't match the trips report"],
     "symptoms": ["The tacho activity chart shows {driver} starting an hour before the trips report does. "
                  "Which one is wrong?"],
     "staff_cause": ["Neither is wrong. Tachographs record in UTC by law, and the tachograph screens show "
                     "the recorded UTC times, while the trips report uses your local time zone. In winter in "
                     "the UK they match; in summer, or in central Europe, they differ by an hour or two."],
     "fixes": ["You can switch the tachograph views to local time with the toggle at the top of the chart."]},
    {"key": "alert-recipient-unsubscribed", "cause": "The dispatcher unsubscribed from alert emails via the "
                                                     "email footer link",
     "tags": ["alerts", "geofences", "email"], "titles": ["I'm not getting geofence alerts any more"],
     "symptoms": ["I've stopped getting the geofence arrival emails for our customers. The others in the "
                  "office still get them, and the alert is set to send to all of us."],
     "staff_cause": ["Your address clicked the 'unsubscribe' link in one of the alert emails on {date}, so "
                     "our mail service suppresses alerts to you. The geofence and the alert rule are "
                     "working."],
     "fixes": ["I've removed the suppression; you'll get alerts again from now."]},
    {"key": "geofence-too-small", "cause": "The geofence is smaller than the distance covered between "
                                           "position reports, so short visits are missed",
     "tags": ["geofences", "alerts"], "titles": ["Geofence only catches some visits"],
     "symptoms": ["We only get the arrival alert for some of our visits to a customer. Other times the van "
                  "definitely stops there and nothing happens. The zone is a small circle round their door."],
     "staff_cause": ["The geofence is a 25 m circle. Vehicles report every 30 seconds while moving, so a van "
                     "can pull in, stop just outside the circle and leave without a position ever landing "
                     "inside it."],
     "fixes": ["Make the zone at least 100 m across, or cover the whole car park."]},
    {"key": "camera-permission-denied", "cause": "The driver's phone denied the app camera permission",
     "tags": ["driver-app", "proof-of-delivery"], "titles": ["One driver never has POD photos"],
     "symptoms": ["Every delivery done by {driver} has the signature but no photo. He says the camera button "
                  "in the app does nothing."],
     "staff_cause": ["The app on his phone doesn't have permission to use the camera, so the photo step is "
                     "skipped. It was probably declined when the app first asked."],
     "fixes": ["On the phone, go to Settings > Apps > Convoya Driver > Permissions and allow Camera."]},
    {"key": "job-type-photo-optional", "cause": "The job type doesn't require a photo, so drivers skip it",
     "tags": ["proof-of-delivery", "settings"], "titles": ["Photos missing on lots of deliveries"],
     "symptoms": ["Lots of deliveries for our new customer have no POD photo. The drivers say the app didn't "
                  "ask for one."],
     "staff_cause": ["The jobs for that customer use the 'Pallet drop' job type, where the photo is "
                     "optional. Nothing failed to upload; the drivers just weren't asked."],
     "fixes": ["Edit the job type under Settings > Job types and tick 'Photo required'."]},
    {"key": "webhook-cert-expired", "cause": "The customer's webhook endpoint TLS certificate expired",
     "tags": ["webhooks", "api"], "titles": ["Webhooks stopped completely"],
     "symptoms": ["We haven't received any webhooks since Saturday. The developer settings page says "
                  "deliveries are failing."],
     "errors": ["Delivery failed: certificate has expired"],
     "staff_cause": ["The HTTPS certificate on your endpoint expired on Saturday, so every delivery is "
                     "refused at the TLS handshake. Nothing changed on our side."],
     "fixes": ["Once the certificate is renewed, failed events from the last 72 hours can be replayed from "
               "Developer > Webhooks > Failed."]},
    {"key": "api-rate-limit", "cause": "The customer's integration polls the API too often and is rate "
                                       "limited",
     "tags": ["api", "integration"], "titles": ["API returning errors, missing updates"],
     "symptoms": ["Our integration is missing delivery status updates and the logs are full of errors from "
                  "your API. It worked when we had fewer vans."],
     "errors": ["HTTP 429 Too Many Requests"],
     "staff_cause": ["Your integration requests the status of every job every 10 seconds, which goes over "
                     "the rate limit of 600 requests per minute, so some calls are refused with 429."],
     "fixes": ["Subscribing to the job webhooks instead of polling will give you every update without the "
               "limit."]},
    {"key": "unassigned-driving", "cause": "Driving was recorded while no driver was logged in to the ELD",
     "tags": ["eld", "hours-of-service"], "titles": ["Unidentified driving on compliance dashboard"],
     "symptoms": ["Our compliance dashboard shows hours of driving we can't account for and the safety score "
                  "dropped. Is the HOS calculation wrong?"],
     "staff_cause": ["That time is unassigned driving: the trucks moved while no driver was logged in to the "
                     "ELD. The clocks are right; the drive time just isn't attached to anyone yet."],
     "fixes": ["Review it under Compliance > Unassigned driving and have the drivers accept their "
               "segments."]},
    {"key": "personal-conveyance-yard", "cause": "The driver didn't select yard move, so moving the truck in "
                                                 "the yard counted as driving",
     "tags": ["eld", "hours-of-service"], "titles": ["Violation after moving truck in the yard"],
     "symptoms": ["{driver} got a 14 hour violation yesterday. All he did after his shift was move the truck "
                  "across the yard to the fuel pump."],
     "staff_cause": ["He moved the truck while still on duty and without selecting Yard Move, so the ELD "
                     "logged it as driving and extended his day. The violation is real as the log stands."],
     "fixes": ["He can annotate the log, and in future select Yard Move before moving the truck on site."]},
    {"key": "company-card-expired", "cause": "The customer's company card in the card hub expired",
     "tags": ["tachograph", "remote-download"], "titles": ["All remote tacho downloads failing"],
     "symptoms": ["Since Monday every remote tachograph download fails, old trucks and new trucks. Driver "
                  "cards too."],
     "errors": ["RDL failed: company card not valid"],
     "staff_cause": ["The company card in your card hub expired on Sunday. Without a valid company card no "
                     "tachograph will authenticate a remote download."],
     "fixes": ["Insert the renewed card in the hub; queued downloads will run automatically."]},
    {"key": "driver-card-not-seen", "cause": "The driver hasn't inserted his card in a connected vehicle for "
                                             "28 days",
     "tags": ["tachograph", "drivers"], "titles": ["Driver card download overdue for one driver"],
     "symptoms": ["Convoya says the driver card download is overdue for {driver}, but his truck downloads "
                  "fine every week."],
     "staff_cause": ["The driver card is downloaded when it's in a connected tachograph, and his card hasn't "
                     "been in one for 28 days: he's been driving a hired truck without remote download."],
     "fixes": ["Download his card with a card reader at the depot, or have him drive a connected truck."]},
    {"key": "fuel-card-wrong-vehicle", "cause": "The fuel card is assigned to the wrong vehicle in Convoya",
     "tags": ["fuel-cards", "fuel"], "titles": ["Fuel alert says truck wasn't at the pump"],
     "symptoms": ["We keep getting fuel anomaly alerts for {vehicle} saying it wasn't at the filling station "
                  "when the card was used. The driver definitely filled up."],
     "staff_cause": ["The card used is assigned to a different vehicle in Convoya, one that was parked at "
                     "the depot, so the location check fails. The card and vehicle records just need "
                     "matching up."],
     "fixes": ["Change the assignment under Fuel > Cards."]},
    {"key": "tank-capacity-wrong", "cause": "The truck's tank capacity is set to the van default of 80 "
                                            "litres",
     "tags": ["fuel", "vehicles"], "titles": ["Fill exceeds tank capacity alert on one truck"],
     "symptoms": ["Every time {vehicle} fills up we get a 'fill exceeds tank capacity' alert. The litres "
                  "look right on the transaction."],
     "staff_cause": ["The vehicle profile has a tank capacity of 80 litres, the default for vans, so every "
                     "normal fill on a truck looks too big."],
     "fixes": ["Set the right capacity under Vehicle > Specification."]},
    {"key": "default-service-time", "cause": "The default service time of 2 minutes per stop makes ETAs "
                                             "drift later through the day",
     "tags": ["route-planning", "eta"], "titles": ["Drivers late for delivery slots by afternoon"],
     "symptoms": ["Customers are complaining we arrive outside their slot, but only in the afternoon. "
                  "Morning deliveries are on time and the windows are all set."],
     "staff_cause": ["Your stops use the default service time of 2 minutes, while your drivers actually "
                     "spend about 10 at each drop. The plan gets further behind reality with each stop, so "
                     "afternoon windows are missed."],
     "fixes": ["Set a realistic service time per stop or per customer under Route planning > Defaults."]},
    {"key": "max-shift-length", "cause": "The vehicle's shift length is set to 8 hours, so the optimiser "
                                         "leaves stops unassigned",
     "tags": ["route-planning"], "titles": ["Optimiser leaving stops unplanned"],
     "symptoms": ["The optimiser leaves {nn} stops unassigned even though the vans have loads of room. Some "
                  "of them are also planned outside their windows."],
     "staff_cause": ["The vans have a maximum shift of 8 hours in their profiles. The optimiser can't fit "
                     "the rest of the stops within that, so they stay unassigned; capacity isn't the "
                     "limit."]},
    {"key": "dashcam-loop-overwritten", "cause": "The requested footage is older than the SD card's loop and "
                                                 "was overwritten",
     "tags": ["dashcam", "video"], "titles": ["Footage request failed for an old incident"],
     "symptoms": ["I requested dashcam footage from {vehicle} for an incident about three weeks ago and the "
                  "request failed. Other requests work fine."],
     "errors": ["Clip request status: Failed (footage not available)"],
     "staff_cause": ["The camera records in a loop and keeps roughly 60 hours of driving. The footage from "
                     "three weeks ago has already been recorded over, so there's nothing left to upload."]},
    {"key": "dashcam-privacy-mode", "cause": "The driver pressed the privacy button, so the cabin camera was "
                                             "off",
     "tags": ["dashcam", "drivers"], "titles": ["No cabin video from dashcam"],
     "symptoms": ["We requested footage after a harsh braking event and the road view is there but the "
                  "inside camera is black."],
     "staff_cause": ["The driver switched on privacy mode at his break, which turns off the cabin-facing "
                     "camera until it's switched off again. The road camera isn't affected."]},
    {"key": "saml-cert-rotated", "cause": "The customer's identity provider rotated its SAML signing "
                                          "certificate",
     "tags": ["sso", "login"], "titles": ["Nobody can sign in with SSO"],
     "symptoms": ["Since this morning none of our office staff can sign in. Drivers with the app PIN are "
                  "fine."],
     "errors": ["SAML response signature invalid"],
     "staff_cause": ["Your identity provider started signing with a new certificate today and Convoya still "
                     "has the old one, so every sign-in is rejected."],
     "fixes": ["An admin with a password login can upload the new certificate under Settings > Single "
               "sign-on."]},
    {"key": "depot-scope-restricted", "cause": "The user's role is correct but limited to one depot",
     "tags": ["permissions", "users"], "titles": ["Dispatcher can't see most of the fleet"],
     "symptoms": ["A new dispatcher can log in and has the Dispatcher role, but can only see about a third "
                  "of our vehicles and none of the routes from the other site."],
     "staff_cause": ["Her role is right, but her access is limited to {depot}. Vehicles and routes from "
                     "other depots are hidden from her."],
     "fixes": ["Change it under Settings > Users > Depot access."]},
    {"key": "vehicle-group-emptied", "cause": "All vehicles were removed from the group the schedule uses",
     "tags": ["reports", "scheduled-export"], "titles": ["Daily report suddenly empty"],
     "symptoms": ["Our daily {report} email came through empty this morning. It was fine on Friday."],
     "staff_cause": ["The vehicle group the schedule reports on has no vehicles in it since Friday "
                     "afternoon: one of your admins moved them all to a new group. The schedule is working, "
                     "there's just nothing in the group."]},
    {"key": "report-attachment-too-large", "cause": "Reports over 15 MB are sent as a download link that "
                                                    "expires after 7 days",
     "tags": ["reports", "scheduled-export", "email"], "titles": ["Scheduled report has no attachment"],
     "symptoms": ["Our monthly trips export used to come as a CSV attachment, now there's a link and when "
                  "accounts clicked it it said expired."],
     "staff_cause": ["The export is now over 15 MB, so it's sent as a download link instead of an "
                     "attachment, and the link expires after 7 days."],
     "fixes": ["Split the schedule by depot to keep each file small, or download it within the week."]},
    {"key": "odometer-initial-value", "cause": "A new tracker was installed and the starting odometer was "
                                               "never entered",
     "tags": ["odometer", "maintenance"], "titles": ["Odometer showing tiny mileage on new van"],
     "symptoms": ["The odometer for a van we added last month says 2,300 km, but the dashboard says 86,000. "
                  "Service reminders for it make no sense."],
     "staff_cause": ["The van's tracker only reads GPS distance (no CAN connection), and no starting reading "
                     "was entered when it was installed, so it counts from zero."],
     "fixes": ["Enter the dashboard reading under Vehicle > Odometer."]},
    {"key": "engine-hours-schedule", "cause": "The service schedule is based on engine hours, not distance",
     "tags": ["maintenance"], "titles": ["Service reminder came too early"],
     "symptoms": ["We got a service due alert for {vehicle} when it has only done 9,000 km since the last "
                  "service. Interval is 30,000 km."],
     "staff_cause": ["That truck's schedule uses the 'Crane lorry' template, which is based on 500 engine "
                     "hours, not distance. The crane runs with the engine on, so hours add up quickly."]},
    {"key": "defect-notification-recipients", "cause": "Defect notifications still go to the previous "
                                                       "workshop manager",
     "tags": ["defects", "notifications"], "titles": ["Workshop not notified about defects"],
     "symptoms": ["Our new workshop manager isn't getting any defect notifications from the driver checks. "
                  "The defects are in the list."],
     "staff_cause": ["Defect notifications are set to go to your previous workshop manager's address. The "
                     "defects are created correctly; the email just goes to him."],
     "fixes": ["Update the recipients under Settings > Vehicle checks > Notifications."]},
    {"key": "minor-defect-no-workorder", "cause": "Defects graded 'minor - monitor' don't create a work "
                                                  "order, by design",
     "tags": ["defects", "vehicle-checks"], "titles": ["Defect reported but no work order"],
     "symptoms": ["A driver reported a chipped windscreen on his check. It's on the check but no work order "
                  "was created for the workshop."],
     "staff_cause": ["The item was graded 'Minor - monitor' on your check template, and minor defects are "
                     "logged for monitoring without creating a work order."]},
    {"key": "phone-missing-country-code", "cause": "Phone numbers were imported without a country code",
     "tags": ["notifications", "sms", "import"], "titles": ["ETA texts not sent for imported orders"],
     "symptoms": ["None of the customers on today's imported orders got an ETA text. The ones we typed in by "
                  "hand did."],
     "errors": ["SMS not sent: invalid phone number"],
     "staff_cause": ["The imported phone numbers have no country code, and the spreadsheet dropped the "
                     "leading zero, so they aren't valid numbers and no text is sent."]},
    {"key": "sms-credits-exhausted", "cause": "The account's prepaid SMS bundle ran out",
     "tags": ["notifications", "sms", "billing"], "titles": ["No ETA texts at all today"],
     "symptoms": ["Not a single customer has had an ETA text today. Emails are going out."],
     "staff_cause": ["Your SMS bundle ran out yesterday evening, so texts are paused. The log marks them "
                     "'Not sent (no credit)'."],
     "fixes": ["Top up under Settings > Billing > SMS, or turn on automatic top-up."]},
    {"key": "fob-not-registered", "cause": "The driver's replacement fob was never registered to him",
     "tags": ["driver-id", "drivers"], "titles": ["One driver showing as unknown on trips"],
     "symptoms": ["All of {driver}'s trips this week show 'Unknown driver'. Everyone else is fine."],
     "staff_cause": ["He's using a new fob that hasn't been registered to him in the driver list; his old "
                     "fob is still the one on his profile."],
     "fixes": ["Add the new fob ID on his driver profile; you can then reassign this week's trips to him."]},
    {"key": "vehicle-no-reader", "cause": "The hire vans' trackers were fitted without a driver ID reader",
     "tags": ["driver-id", "tracker"], "titles": ["Hire vans always unknown driver"],
     "symptoms": ["The three vans we hired for peak show every trip with 'Unknown driver'. The drivers have "
                  "fobs but say there's nowhere to tap them."],
     "staff_cause": ["Those vans had the plug-in trackers fitted, which have no driver ID reader, so there's "
                     "nothing to identify the driver."],
     "fixes": ["Ask the drivers to sign in on the driver app and select the vehicle; trips are then assigned "
               "to them."]},
]

SINGLETONS = [
    {"title": "Moving a tracker to a new vehicle", "tags": ["tracker", "how-to"],
     "body": "We're selling {vehicle} and want to put its tracker in the replacement van. Do we keep the "
             "history for the old one?",
     "reply": "Yes. Use Vehicles > {vehicle} > Device > Transfer device, and choose 'Keep history on the old "
              "vehicle'. The old vehicle is archived with its trips and the tracker starts a fresh history "
              "on the new one."},
    {"title": "Still billed for trackers from sold trucks", "tags": ["billing", "invoices"],
     "body": "Our {month} invoice still charges for 4 trackers that came out of trucks we sold in the "
             "summer. Can you credit them?",
     "reply": "Devices are billed until they're deactivated under Settings > Devices. I've deactivated the "
              "four units and credited {month}'s charge for them on your next invoice."},
    {"title": "IFTA report for Q3", "tags": ["reports", "fuel-tax"],
     "body": "Does Convoya produce the IFTA mileage by state report or do we still need to do that "
             "separately?",
     "reply": "Reports > Compliance > IFTA gives miles by jurisdiction per quarter, and fuel purchases from "
              "connected fuel cards are included. Export it to CSV for your filing."},
    {"title": "Drivers taking vans home - privacy", "tags": ["privacy", "gdpr", "drivers"],
     "body": "Some of our engineers take the vans home at night. Our union rep wants to know if we can stop "
             "tracking them outside working hours.",
     "reply": "Yes: turn on Private mode under Settings > Privacy. Outside the working hours you set, "
              "positions are hidden from everyone and trips are recorded as distance only."},
    {"title": "Temperature probes for reefers?", "tags": ["feature-request", "sensors"],
     "body": "Can the trackers read the temperature in our reefer trailers, or is that a separate product? "
             "Our supermarket customers are asking for temperature logs with each delivery."},
    {"title": "Add 40 drivers at once", "tags": ["drivers", "how-to"],
     "body": "We've taken over another haulier's contract and need to add 40 drivers. Is there a bulk "
             "import?",
     "reply": "Drivers > Import accepts a CSV with name, email or phone, licence number and fob ID. The "
              "template is on the import page."},
    {"title": "Logo on the customer tracking page", "tags": ["notifications", "branding"],
     "body": "When customers open the 'track your delivery' link it shows the Convoya logo. Can it show "
             "ours?",
     "reply": "On the Pro and Enterprise plans you can upload your logo and colours under Settings > "
              "Customer notifications > Branding."},
    {"title": "Delete former driver's location data", "tags": ["gdpr", "data"],
     "body": "A driver who left in {month} has asked us to delete his personal data. What can we delete "
             "without losing our tacho records?"},
    {"title": "Speeding alert thresholds", "tags": ["alerts", "speeding"],
     "body": "Can the speeding alert be relative to the road limit, like 10% over, instead of a fixed 70 "
             "mph?",
     "reply": "Yes, choose 'Posted limit +' in the speeding alert and set a percentage or a fixed margin."},
    {"title": "Clean air zone charges", "tags": ["feature-request", "reports"],
     "body": "Is there a way to see which vehicles went into the Birmingham and London clean air zones last "
             "month? Accounts wants to check the charges."},
    {"title": "Shared tablets in the cab", "tags": ["driver-app", "drivers"],
     "body": "Our trucks have a tablet each and drivers swap between trucks. Can several drivers use the "
             "same tablet?",
     "reply": "Yes. Set the tablet to Shared mode under Devices; each driver then signs in with their own "
              "PIN at the start of the shift and is signed out at the end."},
    {"title": "Show registration instead of name on map", "tags": ["live-map", "settings"],
     "body": "The labels on the live map show the vehicle names we gave them, can we show the number plates "
             "instead?",
     "reply": "Click the label icon on the live map and choose 'Registration'. It's saved per user."},
    {"title": "Business and private mileage split", "tags": ["reports", "mileage"],
     "body": "Our sales reps have cars with trackers. Can they mark trips as private so we can do the "
             "benefit in kind calculations?",
     "reply": "Turn on 'Trip purpose' for those vehicles; drivers can then mark each trip as business or "
              "private in the app, and the Mileage report splits them."},
    {"title": "Rotate our API key", "tags": ["api", "security"],
     "body": "A contractor who had our API key has left. How do we replace it without breaking the "
             "integration for hours?",
     "reply": "Create a second key under Developer > API keys, switch your integration to it, then revoke "
              "the old one. Both keys work until you revoke."},
    {"title": "Order 15 more trackers", "tags": ["sales", "hardware"],
     "body": "We're adding 15 vans in {month}. Can we order trackers and have them fitted at {depot}?"},
    {"title": "Idling report counts traffic jams", "tags": ["reports", "idling"],
     "body": "The idling report counts minutes sat in traffic on the motorway. Can we only count idling when "
             "the truck is parked?",
     "reply": "Set a minimum idle duration (we suggest 5 minutes) under Reports > Idling > Settings; short "
              "stops in traffic are then left out."},
    {"title": "Electric vans battery level", "tags": ["ev", "question"],
     "body": "We've got our first electric vans. Can we see their battery charge on the map so dispatch "
             "doesn't send them on long runs?",
     "reply": "For vans with the CAN connection, state of charge is shown on the vehicle card and can be "
              "added as a column in the vehicle list. The route optimiser can also use it as a range limit."},
    {"title": "Trailer tracker battery life", "tags": ["tracker", "trailers"],
     "body": "How long do the battery trailer trackers last before they need charging? Some of our trailers "
             "sit in customers' yards for weeks.",
     "reply": "Reporting twice a day, the battery trackers last about three years. If a trailer is moving, "
              "it reports more often and the battery goes down faster."},
]

ARTICLES = {
    "trackers-and-connectivity": {
        "title": "Trackers and connectivity",
        "intro": "Each vehicle's tracker sends its position and engine data to Convoya over the mobile "
                 "network.",
        "sections": [
            ("Installing and activating a tracker", "After the tracker is fitted, add it under Settings > "
             "Devices with its serial number and assign it to a vehicle. It starts reporting once the "
             "ignition is on and it has a GPS fix, usually within five minutes."),
            ("How often a tracker sends its position", "While the ignition is on, trackers report every 30 "
             "seconds, or sooner when the vehicle turns or stops. With the ignition off they go into sleep "
             "mode and report every 4 hours to protect the vehicle battery."),
            ("When a vehicle shows as offline", "A vehicle turns grey on the live map when nothing has been "
             "received for 30 minutes while the ignition was last known to be on. Check the device health "
             "page: it shows the last report, the firmware and whether the SIM is connected to the network. "
             "If several units of the same model go offline together, contact support."),
            ("SIM cards and mobile data", "Trackers come with a roaming SIM managed by Convoya; you don't "
             "need your own data plan. The SIM settings are sent to the tracker by SMS or firmware update. A "
             "unit that registers on the network but never opens a data connection usually has old SIM "
             "settings."),
            ("Power loss and tamper alerts", "If the tracker loses its main power, it sends a tamper alert "
             "and keeps reporting on its backup battery for a few hours. Power loss after workshop work "
             "usually means the power feed was disconnected."),
            ("Firmware updates", "Firmware updates are sent over the air while the vehicle is driving. An "
             "update takes about 15 minutes of driving to complete. The firmware version of each unit is on "
             "the device health page."),
        ],
    },
    "live-map-and-geofences": {
        "title": "Live map and geofences",
        "sections": [
            ("Reading the live map", "Green vehicles are moving, blue are stopped with the ignition on, grey "
             "have the ignition off or have not reported. Click a vehicle to see its driver, speed and the "
             "time of the last position. Labels can show the vehicle name, registration or driver."),
            ("Drawing and editing geofences", "A geofence is a circle or a polygon drawn on the map around a "
             "depot, customer or site. Drag the points to reshape a polygon and click Save. After saving, "
             "check that the geofence still appears in the right place in the list view."),
            ("Geofence alerts and recipients", "An alert rule sends an email, text or app notification when "
             "a vehicle enters or leaves a geofence. Each rule lists its recipients. If one person stops "
             "receiving alert emails, check whether their address has unsubscribed; the suppression can be "
             "removed by support."),
            ("Why a short visit can be missed", "Geofence events are worked out from reported positions. A "
             "vehicle must report at least one position inside the zone, so zones smaller than about 100 m "
             "across can miss short visits. Draw the zone around the whole site, including its car park."),
            ("Time on site report", "The Time on site report lists every visit to a geofence, with arrival, "
             "departure and duration. Use it to check dwell times at customers or to answer delivery "
             "disputes."),
        ],
    },
    "driver-app": {
        "title": "Driver app",
        "intro": "The Convoya Driver app for Android and iOS shows the day's route, captures proof of "
                 "delivery and vehicle checks, and records hours of service where the ELD is used.",
        "sections": [
            ("Signing in drivers", "Drivers sign in with their email or phone and a PIN. On shared tablets, "
             "use Shared mode so each driver signs in at the start of the shift. Signing in and selecting a "
             "vehicle links the driver to that vehicle's trips."),
            ("Capturing proof of delivery", "At each stop the driver can take photos, collect a signature "
             "and add notes. Which steps are required is set on the job type under Settings > Job types; if "
             "'Photo required' is off, the app does not ask for a photo."),
            ("Working without signal", "The app keeps working without signal. Completed stops, signatures "
             "and photos are queued on the phone and uploaded automatically when the connection returns. A "
             "stop shows 'pending upload' until everything has arrived. Drivers should open the app once "
             "they have signal and should not clear the app's data while uploads are pending."),
            ("Phone permissions and storage", "The app needs permission to use the camera, location and "
             "storage. If a permission was declined, allow it in the phone's settings under Apps > Convoya "
             "Driver. Keep at least 1 GB free on the phone: when storage is very low, queued photos can be "
             "lost."),
            ("Keeping the app up to date", "New versions are released through Google Play and the App Store. "
             "Drivers are prompted to update when a version is required. You can see each driver's app "
             "version under Drivers > Devices."),
        ],
    },
    "route-planning": {
        "title": "Route planning and dispatch",
        "sections": [
            ("Importing stops from a spreadsheet", "Import stops from CSV or Excel under Routes > Import. "
             "Map your columns to address, time window, service time, load and contact details. Times must "
             "be in 24-hour format (for example 14:00); values that can't be read are skipped and listed as "
             "warnings at the end of the import, so always read the warnings."),
            ("Time windows and service times", "A time window is when a customer accepts delivery; the "
             "optimiser won't plan an arrival outside it. The service time is how long a driver spends at "
             "the stop. If service times are too short, the plan falls behind reality during the day and "
             "later windows are missed."),
            ("Optimising routes", "Click Optimise to let Convoya assign stops to vehicles and order them. "
             "The optimiser respects time windows, vehicle capacity, driver shift length, breaks and traffic "
             "patterns."),
            ("Unassigned stops", "If a stop can't be fitted within a vehicle's capacity, shift length or the "
             "stop's time window, it's left unassigned with the reason shown. Check the maximum shift length "
             "on the vehicle profiles before adding more vans."),
            ("Sending routes to drivers", "Dispatch sends a route to the driver app once it's final. Changes "
             "during the day, such as adding or moving a stop, are pushed to the driver straight away, and "
             "the driver sees a notification."),
        ],
    },
    "customer-notifications": {
        "title": "Customer ETA notifications",
        "sections": [
            ("ETA texts and emails", "Convoya can text or email your customers when their delivery is "
             "scheduled, when the driver is on the way and when it is delivered, with a live tracking link. "
             "Turn them on under Settings > Customer notifications."),
            ("Text message sender name", "Texts are sent from your company name when it is registered as a "
             "sender name, or from a Convoya number otherwise. In the UK and some other countries mobile "
             "networks filter texts from sender names that are not registered, so a text can show as sent "
             "but never arrive."),
            ("Phone number format", "Enter customers' mobile numbers in international format with the "
             "country code, for example +44 7700 900123. Spreadsheets often drop the leading zero of a "
             "number; numbers that aren't valid are not texted."),
            ("SMS credits and delivery reports", "Texts use the SMS bundle on your plan. When it runs out, "
             "texts are paused until you top up. The notification log shows the delivery report from the "
             "network for each text: delivered, undelivered or not sent."),
        ],
    },
    "hours-of-service-eld": {
        "title": "Hours of service and the ELD (US)",
        "sections": [
            ("Duty statuses and HOS clocks", "Drivers record off duty, sleeper berth, driving and on duty "
             "not driving in the app. The app shows the remaining drive time, the 14-hour window and the "
             "cycle under the ruleset set on the driver's profile."),
            ("Split sleeper berth", "Drivers can split their 10-hour break into a sleeper berth period of at "
             "least 7 hours and another break of at least 2 hours, totalling 10 (7/3 or 8/2). Neither period "
             "counts against the 14-hour window when they are paired. If the clocks don't recognise a valid "
             "split, don't edit the logs; contact support."),
            ("Unassigned driving", "Driving recorded while no driver is logged in appears under Compliance > "
             "Unassigned driving. Drivers accept their segments in the app, or an admin assigns them. "
             "Unassigned time is not a violation by itself but must be reviewed."),
            ("Personal conveyance and yard moves", "Select Yard Move before moving a truck on a site, and "
             "Personal Conveyance for permitted personal use. Movements without one of these are recorded as "
             "driving."),
            ("Roadside inspections", "In inspection mode the driver hands the phone or tablet to the "
             "officer, who sees the logs for the current day and the previous 7 days. Logs can also be sent "
             "to the officer electronically from the same screen."),
        ],
    },
    "tachograph-downloads": {
        "title": "Tachograph remote downloads (EU and UK)",
        "sections": [
            ("How remote downloads work", "The tracker connects to the digital tachograph and downloads the "
             "vehicle unit and the driver card without anyone visiting the truck. Files are stored under "
             "Tachograph > Files and can be sent on to your analysis software automatically."),
            ("Company cards and the card hub", "A remote download needs your company card to authenticate "
             "with the tachograph. Put the card in the Convoya card hub at your office, or use our hosted "
             "card service. When the card expires, every download fails until the renewed card is inserted."),
            ("Download deadlines", "Vehicle units must be downloaded at least every 90 days and driver cards "
             "at least every 28 days. The Compliance page lists anything overdue. A driver card can only be "
             "downloaded while it is in a connected tachograph."),
            ("Times in tachograph data", "Tachographs record in UTC, as the regulations require. Tachograph "
             "charts show UTC by default, so they can differ by one or two hours from trip reports in local "
             "time. Use the local time toggle to compare them."),
            ("Manual downloads", "If a remote download isn't possible, download the vehicle unit with a "
             "download key and upload the file under Tachograph > Files. Manual files count towards the "
             "deadlines."),
        ],
    },
    "fuel-cards": {
        "title": "Fuel cards",
        "sections": [
            ("Connecting a fuel card provider", "Connect DKV, UTA, Shell Fleet, WEX or Radius under Fuel > "
             "Providers with the credentials from your provider. Transactions are imported every few hours."),
            ("Matching cards to vehicles", "Each card is assigned to a vehicle or a driver. Convoya compares "
             "the location of the vehicle with the filling station at the time of the transaction, so a card "
             "assigned to the wrong vehicle causes location alerts."),
            ("Fuel anomaly alerts", "Alerts are raised when a fill is larger than the tank capacity, when "
             "the vehicle wasn't at the station, or when consumption jumps. Check the vehicle's tank "
             "capacity on its profile if a single vehicle triggers the same alert every time."),
            ("Volumes, units and currencies", "Volumes are stored in litres and shown in litres or gallons "
             "depending on your account units. Amounts are converted to your account currency. If the "
             "volumes in Convoya differ from the provider's portal, contact support with an example "
             "transaction."),
        ],
    },
    "maintenance-and-checks": {
        "title": "Maintenance, vehicle checks and defects",
        "sections": [
            ("Service schedules", "A service schedule reminds you when a vehicle is due for service, "
             "inspection or MOT. Schedules can be based on distance, time, engine hours or a mix, and are "
             "applied from templates."),
            ("Odometer and engine hours", "Vehicles with the CAN connection read the odometer from the "
             "vehicle; others calculate distance from GPS, starting from the reading you enter. If the "
             "odometer drifts from the dashboard, enter the current reading under Vehicle > Odometer. "
             "Service reminders recalculate from the new value."),
            ("Walkaround checks and DVIRs", "Drivers complete the daily check in the driver app before "
             "driving. Each item passes or fails, and failed items can have a photo and a note. The "
             "completed check is kept as a PDF."),
            ("Defects and the workshop", "Each failed item becomes a defect on the Defects board and the "
             "workshop is notified by email. Recipients are set under Settings > Vehicle checks > "
             "Notifications. The mechanic records the repair and the next driver confirms it."),
            ("Defect severity", "The check template sets the severity of each item. Major defects take the "
             "vehicle off the road and create a work order; minor defects are logged for monitoring without "
             "a work order."),
        ],
    },
    "dashcams": {
        "title": "Dashcams",
        "sections": [
            ("Event clips", "On harsh braking, acceleration, cornering or a collision, the dashcam uploads a "
             "short clip from before and after the event automatically. Clips appear on the event within a "
             "few minutes when the vehicle has signal."),
            ("Requesting footage", "To get footage that wasn't uploaded automatically, pick the vehicle and "
             "time on the timeline and click Request clip. The camera uploads it the next time it's on and "
             "connected. Long clips take longer; if a request fails, try again or request a shorter clip."),
            ("How long footage is kept", "The camera records continuously to its SD card and overwrites the "
             "oldest footage when full, typically after about 60 hours of driving. Uploaded clips are kept "
             "in Convoya for 12 months."),
            ("Privacy mode", "Drivers can turn off the cabin-facing camera during breaks with the privacy "
             "button. The road-facing camera keeps recording."),
        ],
    },
    "reports-and-exports": {
        "title": "Reports and scheduled exports",
        "sections": [
            ("Running a report", "Choose a report, a date range and vehicles, groups or drivers, then view "
             "it or export it to CSV, Excel or PDF."),
            ("Scheduling reports by email", "Any report can be emailed daily, weekly or monthly to people "
             "inside or outside your company. Open Reports > Schedules to see each schedule's filters and "
             "sending history. If a scheduled report arrives empty, open the schedule and check its vehicle "
             "group."),
            ("Time zones in reports", "Reports use the account time zone unless a user has set their own "
             "under Preferences. Times follow summer and winter time automatically. Tachograph data is an "
             "exception and is shown in UTC."),
            ("Large reports and download links", "Exports over 15 MB are sent as a download link instead of "
             "an attachment. The link works for 7 days."),
        ],
    },
    "api-and-webhooks": {
        "title": "API and webhooks",
        "sections": [
            ("API keys", "Create keys under Developer > API keys. A key has the permissions of the role you "
             "give it. You can have two keys at once, so you can replace a key without downtime."),
            ("Rate limits", "Each account can make 600 requests per minute. Requests over the limit get HTTP "
             "429 with a Retry-After header. Use webhooks instead of frequent polling."),
            ("Webhook delivery and retries", "Webhooks are sent as HTTPS POST requests. Your endpoint should "
             "reply with a 2xx status within the timeout; otherwise the delivery counts as failed and is "
             "retried up to 5 times with increasing delays. The delivery log is under Developer > Webhooks."),
            ("Handling repeated events", "Because of retries, your endpoint can receive the same event more "
             "than once. Every event carries an X-Event-Id header that stays the same across retries, so "
             "store the ids you've processed and ignore repeats. Reply first and process afterwards."),
            ("Endpoint requirements", "Endpoints must use HTTPS with a valid certificate. If deliveries fail "
             "for more than 72 hours, the webhook is paused; failed events can be replayed once the endpoint "
             "works."),
        ],
    },
    "users-roles-and-sso": {
        "title": "Users, roles and single sign-on",
        "sections": [
            ("Roles", "Admin manages the account, Dispatcher plans and sends routes, Fleet Manager handles "
             "vehicles, maintenance and compliance, and Viewer can only look at the map and reports."),
            ("Depot access", "Each user can be limited to one or more depots. They then see only the "
             "vehicles, drivers and routes of those depots, whatever their role."),
            ("Setting up single sign-on", "Convoya supports SAML and OpenID Connect with Microsoft Entra ID, "
             "Okta and Google. Set it up under Settings > Single sign-on. Keep at least one admin with a "
             "password login in case the sign-on connection breaks."),
            ("Mapping identity provider groups to roles", "You can map groups from your identity provider to "
             "Convoya roles. With 'Update role at every sign-in' on, the role from the mapping is applied "
             "each time someone signs in and overrides changes made in Convoya; users whose groups match no "
             "mapping get the default role."),
            ("Renewing the SAML certificate", "When your identity provider starts signing with a new "
             "certificate, upload it under Settings > Single sign-on before the old one is retired, or "
             "sign-ins will fail."),
        ],
    },
    "driver-identification": {
        "title": "Driver identification",
        "sections": [
            ("Driver ID key fobs and readers", "Trackers with a reader identify the driver when they touch "
             "their key fob on it at the start of a trip. The reader can also control an immobiliser, so the "
             "vehicle only starts for a recognised driver."),
            ("Registering a fob to a driver", "Add the fob ID on the driver's profile under Drivers. A "
             "replacement fob must be registered before it's used, or trips are recorded without a driver."),
            ("Trips with an unknown driver", "A trip shows 'Unknown driver' when no registered fob or app "
             "sign-in was recorded for it. Assign the driver afterwards under Trips > Assign driver. If all "
             "vehicles show unknown drivers at once, contact support."),
            ("Fobs and the driver app together", "Drivers who sign in on the driver app and select a vehicle "
             "are assigned to its trips, which is useful for vehicles without a reader. If both are used, "
             "the app sign-in wins."),
        ],
    },
}

QUERIES = [
    {"q": "van dropped off the map after the garage had it", "answers": ["trackers-and-connectivity#5",
                                                                         "trackers-and-connectivity#3"],
     "kind": "symptom"},
    {"q": "why does a parked lorry only update every few hours", "answers": ["trackers-and-connectivity#2"],
     "kind": "paraphrase"},
    {"q": "auto electrician fitted the unit, what do I do next to get it showing", "answers":
        ["trackers-and-connectivity#1"], "kind": "task"},
    {"q": "lots of the older trackers grey for days, sim seems connected but nothing comes through",
     "answers": ["trackers-and-connectivity#4", "trackers-and-connectivity#3"], "kind": "symptom"},
    {"q": "arrival email stopped after I reshaped the customer zone", "answers": ["live-map-and-geofences#2",
                                                                                  "live-map-and-geofences#3"],
     "kind": "symptom"},
    {"q": "only some stops at a customer trigger the alert, the circle is tiny", "answers":
        ["live-map-and-geofences#4"], "kind": "symptom"},
    {"q": "how long did our truck sit at the customer yesterday", "answers": ["live-map-and-geofences#5"],
     "kind": "paraphrase"},
    {"q": "delivery pictures lost when driver had no reception", "answers": ["driver-app#3", "driver-app#4"],
     "kind": "symptom"},
    {"q": "force drivers to take a picture at every drop", "answers": ["driver-app#2"], "kind": "task"},
    {"q": "upload stops from excel", "answers": ["route-planning#1"], "kind": "terse"},
    {"q": "planned arrival is before the customer's booked slot", "answers": ["route-planning#2",
                                                                              "route-planning#1"],
     "kind": "paraphrase"},
    {"q": "optimizer leaves jobs unplaned even tho vans have room", "answers": ["route-planning#4",
                                                                               "route-planning#3"],
     "kind": "typo"},
    {"q": "customers not getting the driver on his way text", "answers": ["customer-notifications#2",
                                                                          "customer-notifications#4"],
     "kind": "symptom"},
    {"q": "7/3 split sleeper", "answers": ["hours-of-service-eld#2"], "kind": "terse"},
    {"q": "hours of driving that nobody was logged in for", "answers": ["hours-of-service-eld#3"],
     "kind": "paraphrase"},
    {"q": "driver moved his truck to the fuel pump and now has a violation",
     "answers": ["hours-of-service-eld#4"], "kind": "symptom"},
    {"q": "what does the officer see when a driver is pulled over for a DOT check",
     "answers": ["hours-of-service-eld#5"], "kind": "plain"},
    {"q": "how often must vehicle units and driver cards be downloaded",
     "answers": ["tachograph-downloads#3"], "kind": "plain"},
    {"q": "tacho chart an hour different to the trip report", "answers": ["tachograph-downloads#4",
                                                                          "reports-and-exports#3"],
     "kind": "symptom"},
    {"q": "every remote downlaod failing since the company card ran out",
     "answers": ["tachograph-downloads#2"], "kind": "typo"},
    {"q": "fuel alert says the fill is bigger than the tank", "answers": ["fuel-cards#3", "fuel-cards#4"],
     "kind": "symptom"},
    {"q": "remind us every 20,000 km for an oil change",
     "answers": ["maintenance-and-checks#1"], "kind": "task"},
    {"q": "mileage in the system is way below what the dash says", "answers": ["maintenance-and-checks#2"],
     "kind": "symptom"},
    {"q": "driver found a defect on his check and the mechanic never heard", "answers":
        ["maintenance-and-checks#4", "maintenance-and-checks#5"], "kind": "symptom"},
    {"q": "get the camera video of an accident", "answers": ["dashcams#2"], "kind": "task"},
    {"q": "email the weekly mileage to accounts every monday",
     "answers": ["reports-and-exports#2"], "kind": "task"},
    {"q": "export link expired", "answers": ["reports-and-exports#4"], "kind": "terse"},
    {"q": "same webhook arriving several times", "answers": ["api-and-webhooks#4", "api-and-webhooks#3"],
     "kind": "symptom"},
    {"q": "429 too many requests", "answers": ["api-and-webhooks#2"], "kind": "terse"},
    {"q": "new planner only sees one site's vans", "answers": ["users-roles-and-sso#2"], "kind": "symptom"},
    {"q": "okta groups to convoya roles", "answers": ["users-roles-and-sso#4"], "kind": "terse"},
    {"q": "trips say unknown driver", "answers": ["driver-identification#3", "driver-identification#2"],
     "kind": "terse"},
    {"q": "We give our dispatchers the Dispatcher role in Convoya but they all sign in through Microsoft, "
          "and every morning some of them are back to read-only and can't touch the routes. Our IT guy says "
          "the groups are fine in Entra. Is something in Convoya overwriting what I set, and how do I stop "
          "it?",
     "answers": ["users-roles-and-sso#4", "users-roles-and-sso#1"], "kind": "long"},
    {"q": "Our ERP takes a few seconds to file each proof of delivery before it answers your webhook, and "
          "we've started seeing the same delivery booked two or three times. Do we need to answer faster, "
          "and is there a way to tell a repeat from a genuinely new event?",
     "answers": ["api-and-webhooks#3", "api-and-webhooks#4"], "kind": "long"},
    {"q": "hi we import tomorrows orders every night from the webshop file, the delivery slots are in there "
          "but the routes come out with vans turning up at 7am for afternoon slots. manual stops are fine. "
          "what are we doing wrong",
     "answers": ["route-planning#1", "route-planning#2"], "kind": "long"},
]
