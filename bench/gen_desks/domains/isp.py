"""Fibrelink: home and small-business broadband in the UK, full fibre (FTTP) and FTTC lines (held-out desk).

Writers are mostly households: people who are not technical and describe what they see ("the internet keeps
going off", "the light is red"), some of them angry after days without a connection, a few elderly customers
whose family set things up for them. A minority are very technical: online gamers and home-lab people, and the
IT person at a small business, who paste traceroutes, ping output and router logs. Lengths vary from one angry
line to several paragraphs. Areas: the Fibrelink Hub 5 router and mesh discs, Wi-Fi bands, line faults and
street cabinets, evening slowdowns, DNS, IPv6, CGNAT, port forwarding and static IPs, Fibrelink email,
installation appointments, moving home, outages, bills and direct debits, contracts, the app.
"""

PRODUCT = "Fibrelink"

STYLE = {
    "lengths": {"oneline": 0.2, "short": 0.32, "medium": 0.28, "long": 0.2},
    "greeting": 0.55,
    "signoff": 0.5,
    "context": (1, 3),
    "rambles": (0, 1),
    "typo_rate": 0.022,
    "careless": 0.5,
    "lowercase": 0.12,
    "no_apostrophes": 0.22,
    "nonnative": 0.5,
    "error_quote": 0.5,
    "hours": (7, 23),
}

STAFF = [("gemma", "Gemma Whitfield"), ("arjun", "Arjun Mehta"), ("sean", "Sean McBride"),
         ("olu", "Olumide Bakare"), ("kasia", "Katarzyna Lewandowska")]

CUSTOMERS = [
    {"name": "Hartley household", "plan": "Full Fibre 500", "seats": 5, "region": "UK", "contact": "Dawn Hartley",
     "sso": None, "writers": ["Ryan Hartley"],
     "notes": "Family of five; two teenagers who game online, Dawn works from home on Teams. Customer since 2023. "
              "Hub 5 plus two mesh discs."},
    {"name": "Mr E. Pollard", "plan": "Superfast 80 (FTTC)", "seats": 1, "region": "UK", "contact": "Eric Pollard",
     "sso": None, "writers": ["Susan Pollard"],
     "notes": "Retired, 81. Daughter Susan often writes on his behalf. Uses Fibrelink email since 2009. Flagged as "
              "needing extra help: prefers phone calls and large print bills."},
    {"name": "Kowalczyk household", "plan": "Full Fibre 900", "seats": 3, "region": "UK", "contact": "Marek Kowalczyk",
     "sso": None, "voice": "pl",
     "notes": "Software developer, runs a home server (Plex, Home Assistant) and uses his own OPNsense router behind "
              "the ONT. Very technical, sends logs."},
    {"name": "Greenway Physio", "plan": "Business Fibre 500 + Static IP", "seats": 9, "region": "UK",
     "contact": "Hannah Greenway", "sso": None, "writers": ["Tom Okoro"],
     "notes": "Physiotherapy clinic. Card terminals, cloud booking system and VoIP phones on the line. Tom is their "
              "outsourced IT support. One static IPv4 address, used for the booking system's allow list."},
    {"name": "Okonkwo household", "plan": "Fibre 150 Essentials", "seats": 4, "region": "UK",
     "contact": "Blessing Okonkwo", "sso": None,
     "notes": "Joined in June 2026 on an 18-month contract. Uses the Fibrelink app for everything."},
    {"name": "Maple Street Cafe", "plan": "Business Superfast 80 (FTTC)", "seats": 6, "region": "UK",
     "contact": "Luca Ferraro", "sso": None, "voice": "it",
     "notes": "Small cafe; guest Wi-Fi, card machines and a music streaming box. Owner is busy and not technical."},
    {"name": "Singh household", "plan": "Full Fibre 500", "seats": 4, "region": "UK", "contact": "Harpreet Singh",
     "sso": None, "writers": ["Jasdeep Singh"],
     "notes": "Jasdeep (son) is a competitive gamer and streams on Twitch. Previously complained about evening ping."},
    {"name": "Ms R. Achterberg", "plan": "Fibre 150 Essentials", "seats": 1, "region": "UK",
     "contact": "Rianne Achterberg", "sso": None, "voice": "nl",
     "notes": "Lives alone in a rented flat. Moved home once with Fibrelink already."},
    {"name": "Brennan & Doyle Accountants", "plan": "Business Fibre 900 + Static IP block /29", "seats": 14,
     "region": "UK", "contact": "Ciaran Doyle", "sso": None, "writers": ["Priya Nair"],
     "notes": "Accountancy practice. Five static IPs, site-to-site VPN to a second office, uses Fibrelink business "
              "email for two legacy mailboxes. Priya is the office manager."},
    {"name": "Whitmore household", "plan": "Superfast 80 (FTTC)", "seats": 2, "region": "UK",
     "contact": "Gary Whitmore", "sso": None,
     "notes": "Has complained twice this year about dropouts. Tends to write angry, short messages."},
    {"name": "Adebayo household", "plan": "Full Fibre 900", "seats": 6, "region": "UK", "contact": "Funmi Adebayo",
     "sso": None, "writers": ["Kayode Adebayo"],
     "notes": "Large house, Hub 5 and three mesh discs. Lots of smart home devices. Kayode works in IT."},
    {"name": "Fairlight Holiday Lets", "plan": "Business Fibre 150", "seats": 3, "region": "UK",
     "contact": "Moira Fairlie", "sso": None,
     "notes": "Two holiday cottages on one business account, guests use the Wi-Fi. Bills paid by direct debit on "
              "the 1st."},
    {"name": "Nowak household", "plan": "Full Fibre 500", "seats": 3, "region": "UK", "contact": "Agnieszka Nowak",
     "sso": None, "voice": "pl",
     "notes": "New customer, installed in August 2026. CCTV system with remote viewing app."},
    {"name": "Tran household", "plan": "Fibre 150 Essentials", "seats": 2, "region": "UK", "contact": "Minh Tran",
     "sso": None,
     "notes": "Student house share contract in Minh's name. Pays by direct debit, has been in arrears once."},
    {"name": "Castle Print Studio", "plan": "Business Fibre 500 + Static IP", "seats": 5, "region": "UK",
     "contact": "Owen Castle", "sso": None,
     "notes": "Design and print shop. Sends large files to clients, hosts a small FTP server on the static IP."},
]

SLOTS = {
    "device": ["my laptop", "the kids' iPads", "the smart TV", "my work laptop", "the PS5", "my phone",
               "the Xbox", "the Fire Stick", "my husband's laptop"],
    "streaming": ["Netflix", "iPlayer", "Disney+", "YouTube", "Prime Video", "Now TV"],
    "game": ["Call of Duty", "Fortnite", "Valorant", "EA FC", "Apex Legends", "Rocket League"],
    "website": ["bbc.co.uk", "amazon.co.uk", "google.com", "my bank's website", "the council website",
                "gov.uk"],
    "mail_app": ["Outlook", "the iPhone Mail app", "Thunderbird", "Windows Mail", "the Mail app on the iPad"],
    "month": ["August", "September", "October", "November"],
    "bank": ["Barclays", "Lloyds", "NatWest", "HSBC", "Santander", "Nationwide", "Monzo"],
    "slot": ["8am to 1pm", "1pm to 6pm", "morning", "afternoon"],
    "speed": ["4", "9", "12", "23", "31", "38"],
}

GREETINGS = ["Hi,", "Hello,", "Hi there,", "Good evening,", "Dear Fibrelink,", "Hi {staff},", "To whom it may concern,",
             "Hello Fibrelink support,", "Evening,", "hi"]
SIGNOFFS = ["Thanks,\n{first}", "Regards,\n{name}", "Thanks {first}", "Cheers,\n{first}",
            "{name}\nAccount number FL{ref}", "Kind regards,\n{name}\n{company}", "Sent from my iPhone",
            "Please sort this out.\n{name}", "Thanks in advance\n{first}"]
VOICE_GREETINGS = {"pl": ["Hello,", "Good day,", "Dear Sir or Madam,"],
                   "it": ["Hello,", "Good morning,", "Hi, is Luca from the cafe."],
                   "nl": ["Hello,", "Dear Fibrelink,"]}
VOICE_SIGNOFFS = {"pl": ["Best regards,\n{name}", "Regards\n{first}"],
                  "it": ["Thank you very much\n{first}", "Grazie,\n{first}"],
                  "nl": ["Kind regards,\n{name}", "Greetings,\n{first}"]}
CONTEXT = [
    "I work from home so I need the internet to actually work in the day.",
    "My account number is FL{ref} if you need it.",
    "I've already spent {n} hours on your phone line this week and got nowhere.",
    "We've been customers for years and never had problems like this before.",
    "I'm not very technical so please explain in plain English.",
    "My son usually sorts this sort of thing out but he's away at university.",
    "We run a small business from here and the card machine needs the internet.",
    "For what it's worth I'm a network engineer by trade, so I've done the basic checks.",
    "The kids have exams coming up and need the internet for homework.",
    "I'm writing this on 4G from my phone because the broadband is useless.",
    "We pay for the {n}00 package and I expect to get something close to it.",
    "Your chat bot just kept sending me the same article.",
    "This is the second time I'm contacting you about this.",
]
RAMBLES = [
    "My husband passed away last year and he always dealt with this sort of thing, so I'm a bit lost. My "
    "granddaughter set up the new router for me when it came and it was working lovely until now.",
    "We moved here in the spring and chose Fibrelink because the neighbours recommended you. I've told them "
    "about this and they've said they haven't had any problems, so I don't know why it's just us.",
    "I've got the Hub in the hallway because that's where the socket is, and the mesh thing upstairs on the "
    "landing. The engineer who installed it said that was the best place. I haven't moved anything since.",
    "I run a small online shop from the spare room, so when the internet goes I'm literally losing orders. I "
    "tried tethering to my phone but the signal here is terrible, one bar on a good day.",
    "Honestly I've been patient. I've rebooted it, I've unplugged everything, I've sat on hold, I've used the "
    "chat. I just want someone to tell me what is actually going on.",
]
TRIED = [
    "I've turned the router off and on again, several times.",
    "I've restarted everything, router, mesh discs, the lot.",
    "I did a factory reset with a paperclip but it made no difference.",
    "I ran the line test in the app and it said everything was fine, which it clearly isn't.",
    "Tested with a laptop plugged straight into the Hub with a cable, same thing.",
    "I've checked the status page for my postcode and it says there are no known issues.",
    "Tried a different power socket and a different cable.",
]
ASKS = ["Can you fix this please?", "What is going on?", "Please can someone call me.", "Is this your end or mine?",
        "How long will this take to fix?", "I want this sorted today.", "Can you send an engineer?",
        "Any ideas?", "Is there a known issue?", "I'd like some compensation for this as well.",
        "Let me know if you need any more logs."]
ERROR_INTROS = ["It says: \"{error}\"", "The router log shows: {error}", "Error on screen: \"{error}\"",
                "I'm getting this: {error}", "Copied from the Hub's event log:\n{error}",
                "Screenshot attached, it says \"{error}\"."]
FOLLOWUP_WAIT = ["Still waiting for a reply. Still no internet.", "Hello?? Anyone?",
                 "Chasing this. It's been {n} days now.",
                 "Any update? Same problem again tonight.",
                 "I'll be going to Ofcom if I don't hear back soon.",
                 "Following up, nothing has changed."]
FOLLOWUP_THANKS = ["That's fixed it, thank you.", "Working now, thanks {staff}.",
                   "Brilliant, all back to normal.", "Thanks, I'll keep an eye on it tonight and let you know.",
                   "OK thanks for explaining. About time.", "Sorted, cheers."]
REPLY_INFO = ["Account number FL{ref}.", "It's the Hub 5, the white one.", "Photo of the router lights attached.",
              "Yes it's the same with a cable plugged in.", "Happy for you to run tests on the line any time.",
              "I've attached the speed test screenshots from this morning and last night.",
              "Best number to reach me is the mobile on the account."]

STAFF_OPENERS = ["Hi {first},", "Hello {first}, thanks for getting in touch.", "Hi {first}, thanks for the detail.",
                 "Hi {first}, I'm sorry for the trouble you've had with this.", "Hi {first}, thanks for your patience."]
STAFF_SIGNOFFS = ["Best wishes,\n{staff}", "Kind regards,\n{staff} | Fibrelink Support", "Thanks,\n{staff}",
                  "{staff}\nFibrelink Customer Care", ""]
STAFF_ASKS = [
    "Could you tell me which lights are showing on the front of your Hub, and what colour they are?",
    "Could you run a speed test with a device plugged into the Hub with a cable, and send me the result?",
    "Is this happening on every device, or only some of them? And on Wi-Fi only, or with a cable as well?",
    "Could you confirm your account number (it starts with FL) and the postcode of the property, so I can find your "
    "account?",
    "Are you happy for me to run a remote line test? It may drop your connection for a minute.",
]
STAFF_HOLDING = [
    "Thanks for reporting this. I've passed it to our network team and I'll update you as soon as I hear back.",
    "I'm looking into this now and will come back to you today.",
    "I can see something unusual on your line. I've escalated it and will keep you posted.",
    "Sorry for the wait. I've raised this with the team who can look into it properly and will be in touch.",
]
INTERNAL_GENERIC = ["Remote line test run: no fault found on test. Awaiting customer info.",
                    "Checked account: no outstanding balance, no open orders.",
                    "Called customer, no answer. Left voicemail.",
                    "Customer is flagged as needing extra help: call rather than email if possible."]
TAG_EXTRAS = ["complaint", "escalated", "vulnerable-customer", "business", "how-to", "compensation"]
VAGUE_TITLES = ["Internet not working", "Broadband problem", "Help", "Complaint", "No internet AGAIN",
                "Problem with my Fibrelink", "Fix my broadband"]

CLUSTERS = [
    {
        "key": "hub5-firmware-5ghz",
        "cause": "Firmware 4.12.0, pushed automatically to Hub 5 routers, leaves the 5 GHz radio switched off after "
                 "it detects radar on a DFS channel: the 5 GHz band disappears until the Hub restarts, and mesh "
                 "discs lose their backhaul",
        "tags": ["wifi", "router", "hub5", "mesh"],
        "priority": ["normal", "high", "normal"],
        "titles": ["Wi-Fi really slow since last week", "5G wifi network has disappeared",
                   "Mesh discs keep going orange", "Wireless keeps dropping but cable is fine",
                   "Hub 5 5GHz band not working after update", "Devices can't see the Wi-Fi upstairs"],
        "symptoms": [
            "Our Wi-Fi has gone really slow over the last week. {device} used to get 400 and something on a "
            "speed test and now it's more like 40. If I plug the laptop into the router with a cable it's fine.",
            "The network ending in -5G has just vanished from the list on my phone. The other one is still there "
            "but it's slow. It comes back if I turn the router off and on but it's gone again by the evening.",
            "The mesh discs upstairs keep going orange and the bedrooms have no internet. Downstairs near the Hub "
            "is OK. Nothing has been moved.",
            "My work laptop keeps dropping off Teams calls. IT at work say it's my home Wi-Fi. My phone seems to "
            "stay connected but it's slow.",
            "Since the Hub updated itself, the 5 GHz radio switches off at random. The admin page shows the 5 GHz "
            "band as 'Off' even though the setting is enabled, and it only comes back after a reboot.",
            "The Hub's event log shows a radar detection on channel 100 and then nothing on 5 GHz for the rest of "
            "the day. Firmware version is 4.12.0. The radio never moves to another channel, it just stays down.",
            "The smart TV in the living room says it can't find the network it was connected to. It was on the "
            "fast Wi-Fi, I think. Everything else in the house is on the slow one now.",
        ],
        "details": [
            "It started around {date}.",
            "It's a Hub 5, white with the light bar on the front.",
            "Every device with a cable is perfect, it is only wireless.",
            "The 2.4 network is still there, it's only the 5 one that goes.",
            "Router status page says firmware 4.12.0, updated {weekday} night.",
            "A reboot fixes it for a few hours and then it happens again.",
        ],
        "errors": ["WLAN 5G: DFS radar detected on ch 100, radio disabled",
                   "Mesh backhaul lost (5 GHz) - satellite MD-2 offline"],
        "staff_cause": [
            "This is a known problem with the Hub 5 firmware update (4.12.0) that went out recently. When the Hub "
            "detects radar on one of the 5 GHz channels it's required to leave, it switches the 5 GHz radio off "
            "instead of moving to another channel, so the fast band disappears until the Hub restarts.",
            "Your Hub has the 4.12.0 firmware, which has a bug in how it handles radar detection on the 5 GHz "
            "band: the 5 GHz Wi-Fi shuts down and doesn't come back. Your mesh discs use that band to talk to the "
            "Hub, which is why they go orange.",
            "It isn't your devices or your line: the latest Hub 5 update turns the 5 GHz Wi-Fi off after a radar "
            "event on the channel it's using, and leaves it off. Everything then falls back to the slower 2.4 GHz "
            "band.",
        ],
        "internal": [
            "Hub 5 fw 4.12.0 DFS bug again (5G radio disabled after radar event). CPE-611. Rollback to 4.11.3 "
            "pushed to this Hub.",
            "Another 4.12.0 5GHz drop. Confirmed in Hub log via TR-069. Linked to CPE-611.",
        ],
        "fixes": [
            "I've rolled your Hub back to the previous firmware (4.11.3) remotely. It will restart once in the next "
            "few minutes; after that the 5 GHz network and the mesh discs should stay up.",
            "Until the fixed firmware is out, you can set the 5 GHz channel to 36, 40, 44 or 48 under Advanced > "
            "Wireless on the Hub's admin page. Those channels don't use radar detection, so the band stays on.",
        ],
        "asks": ["Could you log in to the Hub at 192.168.1.254 and tell me the firmware version on the Status page?"],
        "near": ["old-device-2ghz-only", "neighbour-channel-crowding"],
    },
    {
        "key": "dns-resolver-fault",
        "cause": "A configuration change to Fibrelink's DNS resolvers on the evening of the upgrade left the "
                 "resolver pool timing out under load: name lookups fail or take seconds, while connections by IP "
                 "address keep working",
        "tags": ["dns", "browsing", "network"],
        "priority": ["high", "urgent", "high"],
        "titles": ["Websites not loading but internet connected", "Some sites won't open",
                   "Can't browse, but WhatsApp works", "DNS not resolving", "Internet half working tonight",
                   "Pages time out, games fine"],
        "symptoms": [
            "The router says it's connected and the light is white, but websites won't load. WhatsApp and the "
            "kids' games are still working, which makes no sense to me.",
            "Chrome keeps saying DNS_PROBE_FINISHED_NXDOMAIN for {website} and loads of other sites. Refresh a "
            "few times and sometimes it loads.",
            "Pages take ages to start loading, like ten seconds of a blank screen, then they suddenly appear. "
            "Once a site is open it's quick. {streaming} takes forever to start.",
            "nslookup against your resolvers is timing out:\n> nslookup bbc.co.uk\nDNS request timed out.\n"
            "timeout was 2 seconds.\nSet my PC to 1.1.1.1 and everything is instant. So it's your DNS.",
            "The smart speaker keeps saying it can't connect to the internet and the Ring doorbell app says "
            "offline, but the laptop is on Zoom right now without any problem.",
            "Our card machines at the clinic keep failing with a 'host not found' error, but the phones are "
            "working. Our IT guy says it's a name resolution problem on your side.",
            "Everything in the house says 'no internet' randomly tonight, but my game is still connected and my "
            "ping is normal. It's only new things that fail to connect.",
        ],
        "details": [
            "It started about {time} tonight.",
            "Changing the DNS on my laptop to Google's 8.8.8.8 fixes it straight away.",
            "It's every device, wired and wireless.",
            "ping 8.8.8.8 works fine, ping google.com says could not find host.",
            "dig @dns1 shows ;; connection timed out; no servers could be reached",
            "My neighbour who is also with Fibrelink has the same problem.",
        ],
        "errors": ["DNS_PROBE_FINISHED_NXDOMAIN", "Server not found", "DNS request timed out.",
                   "getaddrinfo ENOTFOUND", "Host not found"],
        "staff_cause": [
            "We had a problem with our DNS servers, the service that turns website names into addresses. After "
            "a change to them, they were timing out when busy, so websites failed to load even though your "
            "connection itself was up.",
            "This was on our side: our DNS resolvers were overloaded after a configuration change and many "
            "lookups timed out. Anything that was already connected (calls, games) carried on, but new pages and "
            "apps couldn't find their servers.",
            "It's our DNS. Following a change to the resolver pool, lookups were failing or taking several "
            "seconds. Your line and router were fine throughout, which is why the line test passed.",
        ],
        "internal": [
            "Resolver pool timeouts after the rate-limit config push. NET-2290 major incident. Rolled back, "
            "monitoring.",
            "Another DNS timeout report, same window as NET-2290. Closed as part of the incident.",
        ],
        "fixes": [
            "The change has been rolled back and lookups are back to normal. If a device is still struggling, "
            "restarting it clears any failed lookups it has remembered.",
            "It's fixed now. If you changed your DNS to another provider as a workaround, you can leave it or set "
            "it back to automatic; either will work.",
        ],
        "asks": ["Could you try opening a site by name and tell me whether games, video calls or apps that were "
                 "already open keep working?"],
        "near": ["safelink-blocking-site", "pihole-offline"],
    },
    {
        "key": "exchange-backhaul-congestion",
        "cause": "The backhaul link from the Kirkstall exchange to Fibrelink's core has been saturated every evening "
                 "since a new housing development went live on it: speeds collapse and latency rises from about "
                 "7pm to 11pm for every line on that exchange",
        "tags": ["speed", "evening", "latency", "network"],
        "priority": ["normal", "high"],
        "titles": ["Speed terrible every evening", "Buffering every night after 7pm",
                   "Ping spikes at peak time", "Slow in the evenings, fine in the morning",
                   "Packet loss on your network at night", "Not getting anywhere near my speed"],
        "symptoms": [
            "Every evening from about 7 o'clock {streaming} buffers and drops to low quality. In the morning it's "
            "perfect. This has been going on for a couple of weeks.",
            "Speed test this morning: 480 down. Same laptop, same cable, at 9pm: {speed} down. We pay for 500.",
            "My ping in {game} goes from 9 ms to 80-150 ms every night and I'm rubber-banding all over the place. "
            "During the day it's fine. It's not my Wi-Fi, I'm wired.",
            "mtr from my router at 21:30, loss starts at your hop 3 and carries on:\n"
            "  1. 192.168.1.254   0.0%  0.6 ms\n  2. 100.72.4.1      0.0%  3.1 ms\n"
            "  3. kst-agg1.core   18.0%  61.4 ms\n  4. man-cr2.core   17.5%  64.0 ms\n"
            "Same run at 10am is clean, 7 ms to the end.",
            "My Zoom calls in the evening are choppy and people say I freeze. I can't do my evening classes "
            "properly anymore.",
            "Downloads in the evening crawl along at a few megabytes a second. A game update that took ten minutes "
            "last month took three hours last night.",
            "The whole street seems to be slow at night. My neighbours are on Fibrelink too and they say the same. "
            "Daytime is fine for all of us.",
        ],
        "details": [
            "Wired and wireless are both affected.",
            "It's roughly between 7 and 11 at night, worst around 9.",
            "It started a few weeks ago, before that evenings were fine.",
            "I've logged speed tests every hour for three days, happy to send the spreadsheet.",
            "Ping to the Hub itself stays at 1 ms, so it's not inside the house.",
        ],
        "errors": ["Request timed out.", "Packet loss detected (18%)"],
        "staff_cause": [
            "I can see that the link connecting your local exchange to the rest of our network is running at full "
            "capacity in the evenings. A lot of new customers have joined in your area recently, and at peak "
            "times there isn't enough room for everyone, so speeds drop and ping goes up.",
            "It's congestion on our side: the backhaul from the Kirkstall exchange is saturated between about 7pm "
            "and 11pm. Your line itself is fine, which is why daytime tests are at full speed.",
            "Your traceroute is spot on: the loss starts at our aggregation router for your exchange. That link "
            "is over capacity every evening since a new development was connected to it.",
        ],
        "internal": [
            "Kirkstall backhaul at 100% 19:00-23:00 daily. NET-2305, second 10G link on order. Customer eligible "
            "for goodwill credit.",
            "Another Kirkstall evening congestion ticket. Linked to NET-2305.",
        ],
        "fixes": [
            "We're adding a second link to double the capacity; it is due to go live within the next two weeks. "
            "I've added a credit to your account for the poor service in the meantime.",
            "An upgrade to the link is booked. There's nothing you need to change at home, and you don't need an "
            "engineer visit. I'll update this ticket once the extra capacity is live.",
        ],
        "asks": ["Could you run a speed test with a cable both in the morning and at around 9pm and send me both "
                 "results?"],
        "near": ["cloud-backup-upload", "game-server-lag"],
        "near_clusters": ["hub5-firmware-5ghz"],
    },
    {
        "key": "cabinet-water-ingress",
        "cause": "Water got into street cabinet 14 after the storms and corroded the copper connections inside it: "
                 "the FTTC lines it serves drop sync, lose speed and get noisy, worse when it rains",
        "tags": ["line-fault", "fttc", "dropouts", "cabinet"],
        "priority": ["high", "normal", "high"],
        "titles": ["Internet keeps dropping out", "Broadband disconnecting several times a day",
                   "Crackling on phone line and slow internet", "Line speed dropped massively",
                   "DSL light keeps flashing", "Connection drops every time it rains"],
        "symptoms": [
            "Our internet keeps cutting out, five or six times a day now. The light on the router goes orange, "
            "flashes for a minute, then it comes back. It's driving me mad.",
            "The broadband speed has dropped from about 70 to {speed}. The router status page says the line rate "
            "is much lower than it used to be.",
            "There's a crackling noise on the landline and the internet has been rubbish since the storm last "
            "week. I don't know if the two things are connected.",
            "Router log is full of resyncs:\nDSL: Training\nDSL: Showtime, downstream 21500 kbps\nDSL: Link down\n"
            "SNR margin dropping from 6 dB to under 2 dB before each drop. Classic line fault.",
            "It's much worse when it's been raining. On a dry day it's almost normal. When it pours down the "
            "connection drops every half an hour.",
            "Half the road has slow broadband since the weekend. The green cabinet at the end of the street had "
            "its door hanging open for a few days.",
            "The card machine in the cafe keeps losing connection in the middle of payments. The internet box "
            "reboots on its own and the lights all flash.",
        ],
        "details": [
            "We're on the Superfast 80 package, the one that comes through the phone line.",
            "It's not the Wi-Fi, the router itself loses the connection.",
            "The app line test says 'no fault found' every time.",
            "Attainable rate is down to about 30 Mbps and the error counters (CRC, FEC) are going up quickly.",
            "My neighbours at number {n} have had the same trouble.",
        ],
        "errors": ["DSL Link down", "PPP session terminated: carrier lost", "CRC errors: {num}"],
        "staff_cause": [
            "Our engineers have found a fault in the street cabinet that serves your line. Water got inside it "
            "during the recent storms and damaged some of the connections, which is why your line keeps dropping "
            "and is worse when it rains.",
            "It's a fault in your local cabinet (cabinet 14), not in your home: rain has got into it and corroded "
            "the copper connections, so lines from that cabinet are noisy, lose speed and disconnect.",
            "The line tests for every line in your cabinet show the same pattern of noise and drops, which points "
            "to a problem in the cabinet itself. Openreach have confirmed water damage inside it.",
        ],
        "internal": [
            "Cab 14 water ingress confirmed by Openreach, ref OR-{ref}. Multiple lines affected. Do not book "
            "individual engineer visits, link to the cab repair.",
            "Another cab 14 line: same SNR collapse/CRC pattern. Linked to the Openreach cab repair job.",
        ],
        "fixes": [
            "Openreach are replacing the damaged parts inside the cabinet; the repair is scheduled for this week. "
            "You don't need to be in. Your line may need a day or two to settle back to full speed afterwards, so "
            "please don't keep restarting the router.",
            "The cabinet has been repaired. Your line will retrain over the next 24-48 hours; if it's still slow "
            "after that, let me know and I'll reset the line profile.",
        ],
        "asks": ["Could you tell me whether you've noticed the drops being worse in wet weather?"],
        "near": ["dlm-banded-profile", "extension-wiring-noise"],
        "near_clusters": ["backhaul-fibre-cut"],
    },
    {
        "key": "ipv6-pd-renewal",
        "cause": "A software upgrade on the broadband gateways (BNGs) stopped them answering DHCPv6 prefix-delegation "
                 "renewals: about a day after connecting, routers lose their IPv6 prefix and sites or services that "
                 "prefer IPv6 stall until the router reconnects",
        "tags": ["ipv6", "network", "browsing"],
        "priority": ["normal", "high"],
        "titles": ["IPv6 stops working after a day", "Some websites hang, reboot fixes it",
                   "Lost IPv6 prefix", "Google and YouTube slow to load", "test-ipv6 shows 0/10",
                   "Xbox says Teredo unable to qualify"],
        "symptoms": [
            "Certain websites just hang and never load, Google and YouTube especially. If I restart the router "
            "it's fine for a day or so, then it starts again.",
            "test-ipv6.com gives me 0/10 today. Yesterday after a reboot it was 10/10. The router status page "
            "says 'IPv6: no prefix' now.",
            "My OPNsense box logs a DHCPv6 renew every 12 hours and your side stops replying after the upgrade "
            "weekend:\ndhcp6c: send renew to ff02::1:2\ndhcp6c: no responses were received\n"
            "then the /56 expires and the LAN loses its global addresses.",
            "The Xbox network test says Teredo is unable to qualify and party chat won't connect. It was all open "
            "last month.",
            "Our office VoIP phones register fine in the morning, but by the next day calls start failing to "
            "connect. Our IT support says the phones are trying IPv6 and it isn't there any more.",
            "My phone on Wi-Fi takes ages to open some apps, but if I turn Wi-Fi off and use 4G they open straight "
            "away. Restarting the Hub helps for a day.",
        ],
        "details": [
            "A router restart fixes it every time, for roughly 24 hours.",
            "ping -6 google.com: Network is unreachable.",
            "IPv4 is fine the whole time.",
            "It started the weekend you did the maintenance work.",
            "The WAN side keeps its IPv6 address, it's only the delegated prefix that goes.",
        ],
        "errors": ["IPv6: no prefix", "dhcp6c: no responses were received", "Teredo is unable to qualify",
                   "connect: Network is unreachable"],
        "staff_cause": [
            "After a software upgrade on the equipment your connection goes through, it stopped renewing the "
            "block of IPv6 addresses your router is given. About a day after your router connects, that block "
            "runs out, and anything that uses IPv6 stops working until the router reconnects.",
            "This is on our side: since the gateway upgrade, DHCPv6 prefix delegation renewals go unanswered, so "
            "your /56 prefix expires after its lifetime and your LAN loses IPv6. A reconnect gets a fresh prefix, "
            "which is why a reboot fixes it for a day.",
        ],
        "internal": [
            "BNG upgrade regression: DHCPv6-PD RENEW ignored. NET-2318, vendor case open. Rebind on reconnect "
            "works.",
            "IPv6 PD loss after ~24h, same as NET-2318.",
        ],
        "fixes": [
            "Our network team has applied the vendor's fix to the gateways, and prefix renewals are working again. "
            "Please restart your router once so it picks up a fresh prefix; it should then keep it.",
            "A fix is being rolled out. In the meantime, restarting the router restores IPv6 for about a day, or "
            "you can turn IPv6 off on the Hub (Advanced > IPv6) and everything will use IPv4 without the delays.",
        ],
        "near": ["own-router-no-pd"],
        "near_clusters": ["dns-resolver-fault"],
    },
    {
        "key": "cgnat-rollout",
        "cause": "The August IPv4 address reclaim moved residential lines onto carrier-grade NAT (CGNAT) without "
                 "telling customers: their Hub's WAN address is now in 100.64.0.0/10, shared with others, so "
                 "incoming connections and port forwards stop working",
        "tags": ["cgnat", "port-forwarding", "gaming", "ip-address"],
        "priority": ["normal", "normal", "high"],
        "titles": ["Port forwarding stopped working", "Can't view my CCTV away from home",
                   "Strict NAT on PlayStation", "Plex remote access not available",
                   "WAN IP starts with 100.", "Did you put me behind CGNAT?"],
        "symptoms": [
            "I can't see my CCTV cameras on my phone when I'm out any more. At home on the Wi-Fi it works. The "
            "camera company says it's my internet.",
            "My port forwards for my Minecraft server have stopped working. Nothing changed on my side. The Hub "
            "says my WAN IP is 100.71.something, which isn't even a public address.",
            "Plex says remote access is unavailable and it can't reach my server from outside. Port 32400 is "
            "forwarded correctly, I've checked it three times.",
            "The PS5 is showing NAT type 3 now and my son can't join his friends' parties in {game}. It used to "
            "be type 2.",
            "WAN address 100.64.93.17, but whatismyip shows 81.174.x.x. That's CGNAT. When did this happen and "
            "why wasn't I told? I need inbound connections for my home VPN.",
            "I can't connect to my home server with WireGuard from work any more. The handshake never completes, "
            "even though the port is open on the router.",
            "My solar panel and battery app stopped showing live data when I'm not at home. The installer says "
            "the inverter needs a port opening and I've done that.",
        ],
        "details": [
            "It stopped working around {date}.",
            "The IP address shown on the Hub doesn't match the one websites see.",
            "UPnP is on and I haven't changed any settings.",
            "Outgoing stuff all works fine, it's only connections coming in.",
            "The forwarding rule points at the right device, it has a reserved address.",
        ],
        "errors": ["Remote access unavailable", "NAT Type: Strict", "NAT Type 3", "Handshake did not complete"],
        "staff_cause": [
            "Your line was recently moved onto what's called CGNAT, where several customers share one public "
            "internet address. It saves addresses, but it means connections coming in from outside can't reach "
            "your home, so port forwarding, remote camera viewing and hosting stop working. I'm sorry we didn't "
            "tell you in advance.",
            "Yes, you're behind CGNAT: in August we moved a number of residential lines onto shared addresses, "
            "and your Hub's WAN address (100.64.0.0/10 range) isn't reachable from the internet. That's why your "
            "forwards stopped, nothing you did.",
            "The change is on our side. Your connection now shares a public IP address with other customers "
            "(carrier-grade NAT), which blocks incoming connections and gives games a strict NAT type.",
        ],
        "internal": [
            "CGNAT reclaim cohort (Aug). Opted customer out, public IPv4 assigned on next reconnect. NET-2277 for "
            "the missing customer notice.",
            "Another CGNAT port-forward complaint from the August cohort. Opt-out applied.",
        ],
        "fixes": [
            "I've taken your line off CGNAT, free of charge. Restart your Hub tonight and it will get its own "
            "public address again; your port forwards will then work as before.",
            "You can opt out yourself in the Fibrelink app under Broadband > Public IP address, which takes effect "
            "the next time the Hub reconnects. If you need an address that never changes, a static IP is "
            "available as an add-on.",
        ],
        "asks": ["Could you tell me the WAN IP address shown on your Hub's Status page?"],
        "near": ["port-forward-stale-ip", "double-nat-own-router"],
        "near_clusters": ["ipv6-pd-renewal"],
    },
    {
        "key": "direct-debit-double",
        "cause": "The direct debit collection file for the 1 October run was submitted to Bacs twice: customers who "
                 "pay on the 1st were charged their monthly bill twice",
        "tags": ["billing", "direct-debit", "payments"],
        "priority": ["high", "high", "urgent"],
        "titles": ["You've taken my payment twice", "Charged twice this month",
                   "Double direct debit from Fibrelink", "Two payments on my bank statement",
                   "Refund the duplicate payment NOW", "Overdrawn because of your double charge"],
        "symptoms": [
            "You've taken my broadband payment twice this month. There are two payments to FIBRELINK on my "
            "{bank} statement on the same day for the same amount.",
            "I've gone overdrawn because you took £{amount} twice and now the bank has charged me a fee. I want "
            "this money back today and the bank charge covered.",
            "My banking app shows two direct debits from Fibrelink on the 1st but the Fibrelink app only shows "
            "one bill. Which one is right?",
            "Our business account was debited twice for the October invoice. Our bookkeeper flagged it when "
            "reconciling. The invoice number is the same on both.",
            "Hi, just checking, did my bill go up? The amount that came out this month is double what it "
            "normally is. Actually looking again it's two separate payments.",
            "Dad's pension account has been hit twice by your direct debit. He's on a fixed income and this has "
            "left him short for the month.",
        ],
        "details": [
            "My direct debit date is the 1st of the month.",
            "Both payments have the same reference.",
            "I haven't changed anything with my bank.",
            "Nothing else is different on the bill, the monthly price is the same as usual.",
        ],
        "staff_cause": [
            "I'm really sorry, this was our mistake. The payment request we send to the banks for customers who "
            "pay on the 1st was accidentally sent twice, so you were charged twice for the same bill.",
            "You were right: a processing error on our side submitted the 1 October direct debit collection "
            "twice. Your bill itself is correct, only the payment was duplicated.",
        ],
        "internal": [
            "Duplicate Bacs submission 01/10 (BILL-940). Refund raised. Bank charges reimbursable on evidence.",
            "Another BILL-940 double collection. Refund queued, confirmed with customer.",
        ],
        "fixes": [
            "I've refunded the second payment to your bank account; it will arrive within 3 to 5 working days. If "
            "your bank charged you a fee because of it, send us a copy of the statement and we'll refund that "
            "too.",
            "The duplicate payment has been refunded. You may also claim an immediate refund from your bank under "
            "the Direct Debit Guarantee; if you do that, please let us know so we don't refund it twice.",
        ],
        "near": ["first-bill-pro-rata", "annual-price-rise"],
    },
    {
        "key": "email-server-migration",
        "cause": "The Fibrelink email platform migration retired the old server names (pop3.fibrelink.net, "
                 "smtp.fibrelink.net on port 25) and password-only sign-in over unencrypted connections: mail apps "
                 "still set up the old way can't fetch or send",
        "tags": ["email", "fibrelink-email"],
        "priority": ["normal", "normal", "high"],
        "titles": ["Can't get my emails", "Email keeps asking for password",
                   "Can't send emails but I can receive them", "Fibrelink email stopped working on iPad",
                   "Outlook won't connect to mail server", "Certificate warning on email"],
        "symptoms": [
            "My emails have stopped coming through on {mail_app}. It just keeps asking for my password and I "
            "know it's the right one because I can log in on the webmail.",
            "I can receive emails but I can't send any. They sit in the outbox and then I get a message saying the "
            "server rejected them.",
            "Dad's iPad says 'Cannot Get Mail - the connection to the server failed'. He's 81 and relies on his "
            "email to talk to the family. Please help.",
            "Since {weekday} I get a security warning every time I open Outlook saying the identity of the server "
            "cannot be verified. Should I click continue?",
            "Thunderbird shows 'Login to server pop3.fibrelink.net failed' and the send log has 'connection to "
            "smtp.fibrelink.net:25 timed out'. Webmail is fine. Did you change the servers?",
            "Our practice still uses two old Fibrelink mailboxes on the scanner and the accounts software. Both "
            "stopped sending mail at the same time this week.",
            "I haven't had any emails for three days, which is very unusual. People say they've sent them to me. "
            "When I look on the website they're all there.",
        ],
        "details": [
            "Webmail in the browser works perfectly.",
            "I haven't changed my password.",
            "It's the same on my phone and on the computer.",
            "Someone set it up for me years ago, I don't know what settings it uses.",
            "The account settings say incoming server pop3.fibrelink.net.",
        ],
        "errors": ["Cannot Get Mail: The connection to the server failed.", "The server rejected your login",
                   "Login to server pop3.fibrelink.net failed",
                   "The identity of mail.fibrelink.net cannot be verified"],
        "staff_cause": [
            "We moved Fibrelink email onto a new system recently, and the old server names and some older "
            "connection settings were switched off. Your mail app is still using the old settings, so it can't "
            "connect, even though your password is right.",
            "Your email app is set up with our old servers (pop3.fibrelink.net and smtp.fibrelink.net on port 25). "
            "Those were retired when we moved email to the new platform, which only accepts secure connections "
            "to mail.fibrelink.net.",
        ],
        "internal": [
            "Legacy mail host retirement (MAIL-77). Customer on pop3/smtp:25 plaintext. Sent new settings.",
            "Email migration fallout again: old server names. Talked customer through settings.",
        ],
        "fixes": [
            "You'll need to update the settings in your mail app: incoming server mail.fibrelink.net, IMAP port "
            "993 with SSL, outgoing server mail.fibrelink.net, port 587 with STARTTLS, and your full email "
            "address as the username. Your emails are all safe on the server.",
            "The simplest fix is to remove the account from the app and add it again using 'Other' and the new "
            "settings (mail.fibrelink.net, IMAP 993, SMTP 587). If you'd prefer, we can call and do it with you.",
        ],
        "near": ["email-account-locked", "mailbox-full"],
    },
    {
        "key": "install-booking-sync",
        "cause": "Since the change to the engineer-booking integration, installation appointments booked or "
                 "rebooked in the Fibrelink app show as confirmed but are never sent to Openreach: no engineer is "
                 "scheduled",
        "tags": ["installation", "appointment", "engineer"],
        "priority": ["high", "normal", "high"],
        "titles": ["Engineer didn't turn up", "Missed installation appointment",
                   "Took a day off work for nothing", "Installation date keeps changing",
                   "Where is my engineer?", "App says confirmed but Openreach know nothing"],
        "symptoms": [
            "I took the day off work for my installation and nobody came. No call, no text, nothing. The app "
            "still says the appointment is confirmed for today.",
            "We waited in all {slot} for the engineer. When I rang Openreach they said they had no job booked "
            "at our address at all.",
            "I rebooked my installation in the app because the first date didn't suit, and got a confirmation "
            "email. Now the tracker has said 'awaiting engineer' for a week.",
            "Got a text saying my installation has been moved to a date I never chose. I rearranged it in the app "
            "to the {date} and that's the date I booked time off for.",
            "My new router arrived days ago but the fibre still isn't installed. The order page shows the "
            "appointment as confirmed but nobody has been in touch about it.",
            "This is the second missed appointment. Both times the app said confirmed. I'm a single parent and "
            "I can't keep taking days off.",
        ],
        "details": [
            "I booked the appointment through the app.",
            "The confirmation email has a reference starting with INS.",
            "The Openreach tracker has no appointment for my address.",
            "I was in all day, the doorbell works and I didn't get a card through the door.",
        ],
        "errors": ["Appointment status: Confirmed", "Awaiting engineer"],
        "staff_cause": [
            "I'm sorry, this was a fault in our booking system. When appointments are booked or changed in the "
            "app, they've been showing as confirmed but not actually being passed to Openreach, so no engineer "
            "was ever sent.",
            "The appointment you booked never reached Openreach: a recent change to how our app passes bookings "
            "to them broke, so it looked confirmed on our side but there was nothing in their diary.",
        ],
        "internal": [
            "Booking sync failure (ORD-512): app-booked appointment not transmitted to Openreach. Rebooked "
            "manually by phone. Missed appointment compensation applies.",
            "Another ORD-512. Manually placed with Openreach, customer informed.",
        ],
        "fixes": [
            "I've booked a new appointment with Openreach directly and checked that it's in their system. You're "
            "also entitled to automatic compensation for the missed appointment, which I've added to your "
            "account.",
            "Our team has fixed the booking link. I've rebooked your installation and you'll get a text from "
            "Openreach the day before to confirm.",
        ],
        "near": ["wayleave-needed", "engineer-no-access"],
    },
    {
        "key": "home-move-wrong-flat",
        "cause": "The address matching change in the home-move order flow picks the first address at a building: "
                 "moves into flats are ordered against the wrong flat, so the service is activated next door",
        "tags": ["moving-home", "order", "address", "installation"],
        "priority": ["high", "normal"],
        "titles": ["Moved house and no internet", "Home move order has wrong address",
                   "Internet activated in the wrong flat", "New address still not connected",
                   "Moving home order gone wrong", "My neighbour has my broadband"],
        "symptoms": [
            "We moved into our new flat on {weekday} and the internet was supposed to be live. The router is "
            "plugged in but the light stays red.",
            "The engineer came today and said the order is for Flat 1 but we're in Flat 3. He couldn't do "
            "anything and left.",
            "My app shows my new address as Flat A instead of Flat 4. I definitely typed the right one when I "
            "arranged the move.",
            "Weird one: the person in the flat downstairs knocked and said a Fibrelink router was delivered to "
            "them with my name on it, and their own broadband switched over to Fibrelink.",
            "I told you I was moving weeks ago and I still have no broadband at the new place. Every time I call "
            "I get told a different story.",
            "The home move confirmation email has the wrong flat number on it. It's the right building and "
            "postcode but the wrong flat.",
        ],
        "details": [
            "It's a converted house split into four flats.",
            "The move went through the 'Moving home' page on the website.",
            "The old address was disconnected on the right day.",
            "The postcode is correct, just not the flat number.",
        ],
        "staff_cause": [
            "I've found the problem: when your move was placed, our system matched the wrong flat in your "
            "building, so the line was set up at a different flat. That's a fault on our side, not anything you "
            "entered.",
            "Your home move was ordered against the first address listed for your building rather than your flat. "
            "A recent change in our moving-home ordering did this for several moves into flats.",
        ],
        "internal": [
            "Home move address match bug (ORD-530): first UPRN in building picked. Wrong flat activated. Cancel "
            "and re-place on correct UPRN; expedite.",
            "ORD-530 again, flat conversion. Re-placed order with correct address key.",
        ],
        "fixes": [
            "I've cancelled the order on the wrong flat and placed it again for your flat, marked as urgent. "
            "While you wait, I can send you a 4G backup router free of charge so you're not without internet.",
            "The order is now corrected to your flat and the line will be activated on the date in your new "
            "confirmation email. We'll refund the days you had no service.",
        ],
        "near": ["previous-occupant-line", "move-lead-time"],
        "near_clusters": ["install-booking-sync"],
    },
    {
        "key": "backhaul-fibre-cut",
        "cause": "Roadworks cut the fibre duct between the Bramley and Pudsey exchanges: every line fed through it "
                 "loses its connection completely until the fibre is spliced, and the postcode status checker did "
                 "not show the outage for the first hours",
        "tags": ["outage", "no-connection", "network"],
        "priority": ["urgent", "high", "urgent"],
        "titles": ["Internet completely down", "Total loss of service", "No broadband at all since this morning",
                   "Outage in my area?", "Status page says no issues but we're down",
                   "Business offline - urgent"],
        "symptoms": [
            "The internet has gone completely. The light on the Hub is red and nothing is connecting at all.",
            "Your status checker says there are no known issues in my postcode, but we've had no internet since "
            "10 this morning and neither have the neighbours. Is there an outage or not?",
            "Our clinic is completely offline. Card machines, booking system, phones, everything. We're turning "
            "patients away. I need an engineer or an ETA now.",
            "Router log:\nPPPoE: PADI sent, no PADO received\nWAN link up (ONT), no session\n"
            "The ONT shows a normal light, so the fibre into the house is fine. The problem is further upstream.",
            "No internet since early morning. I've restarted the router ten times. Are you aware? My whole road "
            "is talking about it on the community Facebook group.",
            "The broadband went off at lunchtime. The phone line which comes through the router is dead too, "
            "I couldn't even ring you from the house.",
        ],
        "details": [
            "There are roadworks on the main road, they've been digging all week.",
            "Everyone on our street who's with Fibrelink is off.",
            "The ONT box on the wall has its lights on as normal.",
            "The app line test just says 'test failed'.",
        ],
        "errors": ["PPPoE: no PADO received", "No internet connection", "WAN: Disconnected"],
        "staff_cause": [
            "There's a major outage in your area. Contractors doing roadworks cut through one of the fibre cables "
            "that carries traffic from your local exchange, so every connection in the area went down.",
            "It's an outage, not a fault with your line: a fibre duct between the Bramley and Pudsey exchanges was "
            "damaged by roadworks this morning. I'm sorry our status checker didn't show it straight away.",
        ],
        "internal": [
            "Part of MI-0418 (Bramley-Pudsey duct cut). Splicing crew on site. Status page updated late, noted "
            "for review. Customer eligible for automatic compensation if > 2 full working days.",
            "Another MI-0418 report. Added to incident notification list.",
        ],
        "fixes": [
            "Engineers are on site repairing the cable; there are a lot of individual fibres to join, so the "
            "estimate is this evening. You don't need to do anything, your connection will come back by itself.",
            "Service was restored overnight. If your Hub still shows a red light, turn it off for a minute and back "
            "on. If your connection was off for more than two full working days, compensation will be added to "
            "your next bill automatically.",
        ],
        "near": ["ont-power-supply", "account-suspended"],
    },
]

NEAR_MISSES = [
    {"key": "old-device-2ghz-only", "cause": "The customer's old laptop only supports 2.4 GHz Wi-Fi",
     "tags": ["wifi", "router"], "titles": ["Laptop can't see the 5G wifi", "Slow wifi on one laptop"],
     "symptoms": ["My laptop can only see the normal Wi-Fi name, not the one with 5G on the end, and it's really "
                  "slow. My phone sees both and is fast. The laptop is about ten years old.",
                  "One laptop in the house is slow on the Wi-Fi, every other device is fine. It never shows the "
                  "-5G network at all."],
     "details": ["It's a 2014 laptop, still running Windows 10."],
     "staff_cause": ["Your Hub is working normally. That laptop's wireless card only supports the older 2.4 GHz band, "
                     "so it can't see or use the 5 GHz network, which is the fast one.",
                     "The laptop's Wi-Fi adapter is 2.4 GHz only (802.11n), so the -5G network is invisible to it. "
                     "The Hub's 5 GHz band is on and other devices are using it."],
     "fixes": ["A cheap USB Wi-Fi adapter that supports 5 GHz, or a network cable, will get it up to speed."]},
    {"key": "neighbour-channel-crowding",
     "cause": "The customer set the Hub's 2.4 GHz channel by hand and it overlaps with many neighbours' networks",
     "tags": ["wifi", "router", "interference"], "titles": ["Wi-Fi slow in a block of flats", "Wi-Fi drops on some devices"],
     "symptoms": ["Our Wi-Fi is slow and the smart plugs and cameras keep dropping off. I live in a block of flats and "
                  "can see about thirty other networks.",
                  "Wi-Fi keeps dropping on the older gadgets. The phones on the 5G network are fine."],
     "staff_cause": ["I can see your Hub's 2.4 GHz band has been fixed on channel 6, which is the channel most of your "
                     "neighbours' networks use too, so they're all competing. Your 5 GHz band is fine.",
                     "Your 2.4 GHz Wi-Fi was set to a fixed channel at some point and it's very crowded there. It "
                     "isn't a fault with the Hub."],
     "fixes": ["Set the 2.4 GHz channel back to Auto under Advanced > Wireless and the Hub will pick the quietest "
               "one."]},
    {"key": "safelink-blocking-site", "cause": "The customer's SafeLink family filter is blocking the site",
     "tags": ["dns", "parental-controls", "browsing"], "titles": ["One website won't load", "Site blocked?"],
     "symptoms": ["One particular website won't load, it just says it can't be reached. Every other site is fine. "
                  "My husband says it works on his phone on 4G.",
                  "A gaming website gives me a Fibrelink page saying it's been blocked. I never asked for anything "
                  "to be blocked."],
     "errors": ["This site has been blocked by SafeLink"],
     "staff_cause": ["SafeLink, our family filter, is switched on for your account and that site is in one of the "
                     "blocked categories. Your connection and our DNS are working normally.",
                     "The site is being stopped by the SafeLink content filter on your account, which was turned on "
                     "when the account was set up."],
     "fixes": ["The account holder can turn SafeLink off or allow the site in the app under Broadband > SafeLink. "
               "It takes about 15 minutes to apply."]},
    {"key": "pihole-offline", "cause": "The customer's own Pi-hole DNS server has stopped running",
     "tags": ["dns", "browsing"], "titles": ["No websites loading, internet connected", "DNS not working at home"],
     "symptoms": ["Nothing will load in any browser, but the router says connected and my Discord call is still "
                  "going. All devices in the house say no internet.",
                  "Sites won't resolve on any device. I do have a Pi-hole set as DNS in the Hub's settings, but I "
                  "assumed it was your DNS playing up again."],
     "staff_cause": ["Your Hub hands out a DNS server at 192.168.1.20, which is a device on your own network, and "
                     "that device isn't answering. Our DNS servers are working normally.",
                     "Your devices are asking the Pi-hole on your network to look up sites, and it has stopped "
                     "responding. Nothing is wrong with our resolvers."],
     "fixes": ["Restart the Pi-hole, or set the Hub's DNS back to automatic under Advanced > LAN."]},
    {"key": "cloud-backup-upload",
     "cause": "A cloud backup saturates the customer's upload every evening, causing bufferbloat",
     "tags": ["speed", "evening", "latency"], "titles": ["Lag every evening", "Internet slow at night"],
     "symptoms": ["My ping goes through the roof every evening from about 8pm and video calls are terrible. During "
                  "the day it's fine. Downloads look OK on a speed test though.",
                  "Every night the internet becomes unusable for gaming. Speed test download is normal, but the "
                  "upload is maxed out and ping is 400 ms."],
     "staff_cause": ["Your line and our network are fine in the evening. Something on your network is uploading as "
                     "fast as it can every night (it looks like a cloud photo backup starting at 8pm), and when the "
                     "upload is full, everything else slows down and ping shoots up.",
                     "It's the upload on your own connection: a device sends data at full speed from about 8pm, which "
                     "fills the queue and causes the lag. Our network shows no congestion at your exchange."],
     "fixes": ["Limit the backup's upload speed or schedule it overnight; the Hub's Smart Queue setting also helps."]},
    {"key": "game-server-lag", "cause": "Packet loss is at the game's hosting provider, beyond Fibrelink's network",
     "tags": ["gaming", "latency"], "titles": ["High ping in one game", "Packet loss to game servers"],
     "symptoms": ["My ping is awful in {game} but only in that game. Other games and speed tests are fine. "
                  "Traceroute attached, the loss starts after it leaves your network.",
                  "Getting packet loss in-game every night. Traceroute shows hops 1-6 clean and the loss starts at the "
                  "game host's network in Frankfurt."],
     "staff_cause": ["Your traceroute shows a clean path across our network and into the peering point. The loss "
                     "starts inside the game host's network, so it's something their operators need to fix.",
                     "The problem is with the route inside the game company's hosting provider, not on our "
                     "network. Other players on other ISPs are reporting the same thing on their forums."]},
    {"key": "dlm-banded-profile",
     "cause": "Repeated router restarts made the line's DLM apply a stable (interleaved, lower speed) profile",
     "tags": ["line-fault", "fttc", "speed"], "titles": ["Speed dropped after lots of reboots", "Line speed capped?"],
     "symptoms": ["My speed has dropped from 72 to about 40 and the ping in games went up. I did restart the router "
                  "quite a lot last week while moving furniture around."],
     "staff_cause": ["Your line has no fault. Because it was disconnected many times in a short period, the "
                     "automatic line management system thought it was unstable and switched it to a slower, more "
                     "stable setting.",
                     "The line's management system has put it on a protected (interleaved) profile after lots of "
                     "restarts. That's why speed is lower and ping higher; the copper and the cabinet are fine."],
     "fixes": ["Leave the router on without restarting for a few days and the line will step back up; if not, "
               "we can reset the profile."]},
    {"key": "extension-wiring-noise", "cause": "An unfiltered phone extension socket is adding noise to the line",
     "tags": ["line-fault", "fttc", "dropouts"], "titles": ["Broadband drops when the phone rings", "Crackling and dropouts"],
     "symptoms": ["The internet drops every time the phone rings, and sometimes when someone picks up the phone "
                  "upstairs. There's a faint crackle on the line too."],
     "staff_cause": ["A test with the router plugged into the test socket behind the faceplate is perfect, so the "
                     "noise is coming from the extension wiring inside your home, probably a phone extension "
                     "without a filter.",
                     "The problem is inside your property: an old extension socket on the phone wiring is adding "
                     "noise. The line outside and the street cabinet test clean."],
     "fixes": ["Plug the router into the master socket with the faceplate fitted and use a filter on every phone."]},
    {"key": "own-router-no-pd", "cause": "The customer's own router isn't requesting an IPv6 prefix",
     "tags": ["ipv6", "own-router"], "titles": ["No IPv6 on my own router", "IPv6 not working with pfSense"],
     "symptoms": ["I've replaced the Hub with my own router and my devices have no IPv6 at all, not even after a "
                  "reboot. IPv4 is fine. Is IPv6 supported?"],
     "staff_cause": ["IPv6 is enabled on your line, but your router only requests an address for its WAN port and "
                     "doesn't ask for a prefix for your home network, so your devices never get one.",
                     "Your router isn't sending a prefix delegation request. Our gateway is offering a /56 as "
                     "normal."],
     "fixes": ["Turn on DHCPv6 prefix delegation on the WAN interface with a /56 prefix size, and track it on the "
               "LAN."]},
    {"key": "port-forward-stale-ip",
     "cause": "The port forward points at the device's old local IP address after the DHCP lease changed",
     "tags": ["port-forwarding", "router"], "titles": ["CCTV remote viewing stopped", "Port forward not working"],
     "symptoms": ["My CCTV recorder can't be reached from my phone when I'm away any more. The port forward is set "
                  "up in the Hub. It's been working for a year.",
                  "The port forward to my game server stopped working after a power cut. The WAN IP is a normal "
                  "public one."],
     "staff_cause": ["Your Hub still has a public IP address, so that side is fine. The forwarding rule sends "
                     "traffic to 192.168.1.64, but after the power cut your recorder came back on 192.168.1.71, so "
                     "the traffic goes nowhere.",
                     "The forward is pointing at an old local address. The device picked up a new address from the "
                     "Hub, so the rule no longer reaches it."],
     "fixes": ["Reserve an address for the device under Advanced > LAN > DHCP reservations and point the forward "
               "at it."]},
    {"key": "double-nat-own-router",
     "cause": "The customer's own router sits behind the Hub in router mode, creating double NAT",
     "tags": ["port-forwarding", "gaming", "own-router"], "titles": ["Strict NAT with my own router", "Double NAT?"],
     "symptoms": ["My Xbox says double NAT detected and I can't host games. I've got my own gaming router plugged "
                  "into the Fibrelink Hub."],
     "errors": ["Double NAT detected"],
     "staff_cause": ["Your line has its own public IP address. The double NAT comes from your own router being "
                     "plugged into the Hub while the Hub is still acting as a router too, so traffic is translated "
                     "twice.",
                     "Both the Hub and your gaming router are doing NAT, one behind the other. Nothing has changed "
                     "on our side."],
     "fixes": ["Put the Hub into modem mode (Advanced > Modem mode) so your own router gets the public address."]},
    {"key": "first-bill-pro-rata", "cause": "The first bill includes a part month in advance and the set-up charge",
     "tags": ["billing", "direct-debit"], "titles": ["First bill much higher than expected", "Why is my bill so high?"],
     "symptoms": ["My first bill is nearly double what I signed up for. I was told £{amount} a month, not this."],
     "staff_cause": ["Your first bill covers the days from your installation to your bill date as well as the next "
                     "full month in advance, plus the one-off set-up charge. From next month you'll pay your normal "
                     "monthly price.",
                     "Nothing has been charged twice: the first bill always includes a part month and the set-up "
                     "fee, so it's larger than the following ones."]},
    {"key": "annual-price-rise", "cause": "The annual contractual price rise took effect in the bill period",
     "tags": ["billing", "price"], "titles": ["Bill has gone up", "Price increase without warning?"],
     "symptoms": ["My direct debit has gone up this month and nobody told me. Why am I paying more?"],
     "staff_cause": ["Your monthly price went up by the fixed amount set out in your contract. We wrote to you about "
                     "it by email a month before it took effect. It's only taken once."]},
    {"key": "email-account-locked",
     "cause": "An old device with a saved wrong password locked the email account after repeated failed logins",
     "tags": ["email", "fibrelink-email", "login"], "titles": ["Email account locked", "Can't log in to webmail"],
     "symptoms": ["My email stopped working on every device and now I can't even log in to webmail. It says my "
                  "account is temporarily locked."],
     "errors": ["Your account has been temporarily locked"],
     "staff_cause": ["Your mailbox was locked for security after lots of failed sign-ins. They came from an old "
                     "tablet that still has your previous password saved and keeps retrying. The email service is "
                     "working normally.",
                     "The lock was caused by a device at your address repeatedly trying an old password. Your "
                     "settings are correct."],
     "fixes": ["I've unlocked it. Please update or remove the password on the old tablet so it doesn't happen again."]},
    {"key": "mailbox-full", "cause": "The customer's mailbox has reached its storage limit",
     "tags": ["email", "fibrelink-email"], "titles": ["Not receiving emails", "People say emails bounce"],
     "symptoms": ["Friends say their emails to me are bouncing back. I can still send emails and log in fine."],
     "errors": ["552 Mailbox full"],
     "staff_cause": ["Your mailbox is full: it has reached the 5 GB limit, so new messages are being returned to the "
                     "sender. Nothing is wrong with the email servers or your settings."],
     "fixes": ["Delete some old messages with large attachments, and empty the Deleted folder."]},
    {"key": "wayleave-needed",
     "cause": "Installation is on hold waiting for the landlord's permission (wayleave) to run fibre in the building",
     "tags": ["installation", "appointment"], "titles": ["Installation delayed again", "Why is my installation on hold?"],
     "symptoms": ["My installation date has been pushed back again and the tracker says 'on hold'. I live in a "
                  "block of flats. Nobody will tell me why."],
     "staff_cause": ["To run fibre through the communal areas of your building, Openreach need written permission "
                     "from the landlord or managing agent (a wayleave), and it hasn't been signed yet. The "
                     "appointment can't go ahead until it is.",
                     "The order is waiting on a wayleave from your building's managing agent. It isn't a booking "
                     "error."]},
    {"key": "engineer-no-access", "cause": "The engineer visited but couldn't get access and left a card",
     "tags": ["installation", "engineer"], "titles": ["Engineer says nobody was in", "Missed appointment - I was home"],
     "symptoms": ["I've been told the engineer came and nobody was in. I was in all morning! I did pop out for twenty "
                  "minutes to the shop."],
     "staff_cause": ["The engineer's notes show they arrived at 11:40, couldn't get an answer at the door or on your "
                     "mobile, and left a card. It seems they came while you'd stepped out.",
                     "Openreach's records show a visit with no access, with a calling card left. The appointment "
                     "itself was booked correctly."],
     "fixes": ["I've rebooked the visit; please keep your mobile with you during the appointment slot."]},
    {"key": "previous-occupant-line",
     "cause": "The previous occupant's broadband with another provider is still active on the line",
     "tags": ["moving-home", "order"], "titles": ["Can't get broadband at new house", "Line still in use at new address"],
     "symptoms": ["We've moved into our new house and our Fibrelink order is stuck. We're told the line is still "
                  "being used by someone else. We're definitely the only people living here."],
     "staff_cause": ["The previous occupant's broadband with another provider hasn't been cancelled yet, so the line "
                     "is still in use. Your order is correct for your address.",
                     "The line at your new home is still active with the previous residents' provider. Our order "
                     "can't take over until it's released."],
     "fixes": ["We can place the order as a 'new line' instead, which doesn't need their service to stop."]},
    {"key": "move-lead-time", "cause": "The move was booked with less than the 14 days' notice needed",
     "tags": ["moving-home", "order"], "titles": ["No internet on moving day", "Why does moving take so long?"],
     "symptoms": ["I moved on Saturday and still have no broadband at the new place. The confirmation says "
                  "activation is in ten days. I didn't expect to be without internet that long."],
     "staff_cause": ["The move was arranged five days before your moving date, and a home move needs at least 14 "
                     "days' notice for the new line to be ready. The address and order are correct.",
                     "Your activation date is right for when the move was booked; the delay is the normal lead time, "
                     "not an error."],
     "fixes": ["I can send a 4G backup router to cover the gap."]},
    {"key": "ont-power-supply", "cause": "The ONT's power supply at the property has failed",
     "tags": ["no-connection", "line-fault", "fttp"], "titles": ["Internet gone, box on wall has no lights",
                                                                 "No broadband at all"],
     "symptoms": ["Internet went off last night and hasn't come back. The white box on the wall where the fibre "
                  "comes in has no lights on at all. The router light is red."],
     "staff_cause": ["The fibre box on your wall (the ONT) has lost power, which is why it has no lights. There's no "
                     "outage in your area; your neighbours are connected as normal.",
                     "It's the power supply for the ONT at your home, not the network. With no lights on the ONT, "
                     "the Hub can't connect."],
     "fixes": ["Check the ONT's plug and socket; if it's still dark, we'll send a replacement power supply by "
               "next-day post."]},
    {"key": "account-suspended", "cause": "Service was restricted because of unpaid bills",
     "tags": ["no-connection", "billing"], "titles": ["Internet stopped working, every page goes to Fibrelink",
                                                      "Broadband cut off?"],
     "symptoms": ["Our internet stopped working this morning. Every website I try goes to a Fibrelink page instead. "
                  "Is there an outage?"],
     "staff_cause": ["There's no outage. Your account has two unpaid bills after the direct debit was cancelled at "
                     "the bank, so the service has been restricted and websites redirect to the payment page.",
                     "The connection is working, but it's restricted because of an overdue balance. That's why "
                     "every page goes to our payment page."],
     "fixes": ["Once the balance is paid in the app or by phone, service is restored within an hour."]},
]

SINGLETONS = [
    {"title": "How do I change my Wi-Fi password?", "tags": ["wifi", "how-to"],
     "body": "My neighbour's kids seem to know our Wi-Fi password. How do I change it? It's the one on the card on "
             "the back of the router.",
     "reply": "Log in to the Hub at 192.168.1.254 (the admin password is on the same card), go to Wireless and set a "
              "new password. You'll need to reconnect each device with the new one."},
    {"title": "Static IP for our office", "tags": ["static-ip", "business", "order"],
     "body": "We need a static IP address so our software supplier can allow-list us. Can we add one to our business "
             "line, and how long does it take?",
     "reply": "Yes: a single static IPv4 is £5 a month on business plans and is usually live within 24 hours. I've "
              "placed the order; you'll get the address by email."},
    {"title": "When does my contract end?", "tags": ["contract", "question"],
     "body": "Can you tell me when my contract ends? I want to know if I can get a better deal.",
     "reply": "Your minimum term ends on {date} next year; the date is always shown in the app under Account > "
              "Contract. We'll also send you a reminder with your best offer before it ends."},
    {"title": "Cancel my broadband", "tags": ["cancellation", "contract"],
     "body": "I'm moving in with my partner who already has broadband, so I need to cancel. What do I need to do and "
             "do I have to pay anything?",
     "reply": "You can give 30 days' notice from the app or by phone. Because you're still in your minimum term, an "
              "early termination charge applies for the remaining months; I've emailed you the exact figure."},
    {"title": "Returning old router", "tags": ["equipment", "returns"],
     "body": "I've left Fibrelink and have the router in a drawer. Do you want it back?",
     "reply": "Yes please: we'll post you a prepaid returns bag. If the Hub isn't returned within 30 days a "
              "non-return charge applies."},
    {"title": "Upgrade to faster package", "tags": ["upgrade", "sales"],
     "body": "We're on Full Fibre 500 but the kids are all gaming and streaming at once. Can we go up to 900, and "
             "does that start a new contract?",
     "reply": "You can upgrade in the app under Broadband > Change package; it takes effect within a day and starts "
              "a new 18-month term at the new price."},
    {"title": "Reverse DNS for our static IP", "tags": ["static-ip", "business", "email"],
     "body": "Our mail relay on our static IP gets rejected by some providers because there's no reverse DNS. Can "
             "you set a PTR record to mail.castleprint.example?",
     "reply": "Done: the PTR for your static address now points to mail.castleprint.example. It can take a few hours "
              "to be seen everywhere."},
    {"title": "Landline not working in power cut", "tags": ["digital-voice", "landline", "vulnerable-customer"],
     "body": "We had a power cut last night and the phone didn't work. My mum has a care alarm. Is that normal now "
             "with the new digital phone line?",
     "reply": "Yes, Digital Voice phones go through the Hub, so they need power. Because your mum relies on the "
              "phone, we'll send a free battery backup unit that keeps the phone working for at least an hour."},
    {"title": "Parental controls", "tags": ["parental-controls", "how-to"],
     "body": "How do I block certain websites for my 10 year old? Is there a way to turn the internet off at "
             "bedtime on his tablet?",
     "reply": "SafeLink in the app lets you block categories for the whole home, and under Devices you can set a "
              "bedtime schedule for a single device."},
    {"title": "Bereavement", "tags": ["account", "bereavement"],
     "body": "My father has passed away and the broadband is in his name. I'd like to keep it going for my mother "
             "who lives there. What do I need to do?",
     "reply": "I'm very sorry for your loss. We can move the account into your mother's name with no charge and no "
              "new contract; we just need a copy of the death certificate."},
    {"title": "Buy another mesh disc", "tags": ["mesh", "wifi", "sales"],
     "body": "The signal in our garden office is weak. Can I buy one more mesh disc?",
     "reply": "Yes, an extra disc is £3 a month or £79 to buy outright, from the app under Broadband > Wi-Fi. It "
              "pairs with your Hub automatically."},
    {"title": "Outbound port 25 blocked?", "tags": ["email", "port", "question"],
     "body": "My self-hosted mail server can't send directly to other servers on port 25. Do you block it?"},
    {"title": "VAT invoice for business account", "tags": ["billing", "business", "invoices"],
     "body": "Our accountant needs VAT invoices for the last six months. Where can I download them?",
     "reply": "VAT invoices are in the app under Account > Bills; each one can be downloaded as a PDF."},
    {"title": "Change direct debit date", "tags": ["billing", "direct-debit", "how-to"],
     "body": "I get paid on the 25th. Can I move my direct debit from the 1st to the 28th?",
     "reply": "Yes, I've moved it to the 28th. Your next bill will include a few extra days to cover the change."},
    {"title": "Modem mode for my own router", "tags": ["own-router", "how-to"],
     "body": "I want to use my own Asus router. Can the Hub go into bridge or modem mode, and what settings does my "
             "router need?",
     "reply": "Yes: Advanced > Modem mode on the Hub. Your router should use PPPoE with the username on your welcome "
              "email and any password; VLAN tagging isn't needed through the Hub."},
    {"title": "Minimum guaranteed speed", "tags": ["speed", "complaint"],
     "body": "My speed has been under the minimum guaranteed speed in my contract for weeks. What are my rights?",
     "reply": "If we can't fix it within 30 days of you reporting it, you can leave without any early termination "
              "charge. I've logged your report today so that clock has started."},
    {"title": "Unwanted sales calls", "tags": ["complaint", "sales"],
     "body": "I keep getting calls from someone claiming to be from Fibrelink asking me to upgrade. Is it you?"},
    {"title": "Large print bills", "tags": ["billing", "accessibility"],
     "body": "My eyesight is not good anymore. Is it possible to have my bills in bigger writing on paper?",
     "reply": "Of course. I've set your account to send large print paper bills free of charge, starting with the "
              "next one."},
    {"title": "Wi-Fi in the garden office", "tags": ["wifi", "question"],
     "body": "Would a powerline adapter work better than Wi-Fi to reach the shed at the bottom of the garden?"},
    {"title": "Guest Wi-Fi for the cafe", "tags": ["wifi", "business", "how-to"],
     "body": "Can I set up a separate Wi-Fi for customers so they can't see our card machines and till?",
     "reply": "Yes: turn on Guest Wi-Fi under Wireless > Guest network on the Hub. Guests get internet only and "
              "can't reach devices on your main network."},
]

ARTICLES = {
    "wifi-and-mesh": {
        "title": "Wi-Fi and mesh discs",
        "intro": "Your Fibrelink Hub broadcasts Wi-Fi in two bands, and mesh discs extend it around your home.",
        "sections": [
            ("2.4 GHz and 5 GHz networks", "The Hub broadcasts two networks: one on 2.4 GHz and one on 5 GHz, whose "
             "name ends in -5G. The 5 GHz band is much faster but has shorter range. The 2.4 GHz band reaches "
             "further and works with older devices, but it is slower and more affected by neighbouring networks. "
             "Some older laptops and many smart home gadgets can only use 2.4 GHz."),
            ("Setting up and placing mesh discs", "Mesh discs connect back to the Hub over the 5 GHz band, so place "
             "each one roughly halfway between the Hub and the area with weak signal. A white light means a good "
             "connection, orange means the link to the Hub is weak or lost. If a disc stays orange, move it closer "
             "or connect it to the Hub with a network cable."),
            ("Hub firmware updates", "Hubs update their firmware automatically overnight. You can see the firmware "
             "version on the Status page of the Hub at 192.168.1.254. If Wi-Fi behaves differently straight after "
             "an update, for example one band switching off, contact us: we can check and roll back the firmware "
             "remotely."),
            ("Interference and Wi-Fi channels", "The Hub picks the quietest channel automatically. In flats and busy "
             "streets, fixing a channel by hand often makes things worse. Set channels to Auto under Advanced > "
             "Wireless. For 5 GHz, channels 36 to 48 never need to change because of radar; higher channels may "
             "move when radar is detected nearby."),
        ],
    },
    "speed-and-performance": {
        "title": "Broadband speed and performance",
        "sections": [
            ("Running a reliable speed test", "Test with a computer plugged into the Hub with a network cable, with "
             "other devices idle. Wi-Fi tests measure your Wi-Fi, not your line. Use the speed test in the "
             "Fibrelink app or at speedtest.fibrelink.example, and note the time of day."),
            ("Slow speeds in the evening", "It is normal for speeds to dip slightly at the busiest times, roughly 7pm "
             "to 11pm. A large drop every evening, or high ping and packet loss at the same time each night, "
             "usually means either congestion on our network in your area or something in your home using the "
             "upload. Send us cabled speed tests from the morning and the evening and we'll check the link that "
             "serves your exchange."),
            ("Gaming, ping and traceroutes", "For ping and packet loss problems, a traceroute or mtr to the game "
             "server shows where the delay starts. Loss that begins on our network and continues to the end points "
             "to us; loss that only starts inside the game host's network is outside our control. A full upload "
             "causes lag too, so pause backups and uploads while gaming, or turn on Smart Queue on the Hub."),
            ("Your minimum guaranteed speed", "Your contract shows a minimum guaranteed download speed. If your "
             "cabled speed stays below it and we can't fix the problem within 30 days of you reporting it, you can "
             "leave your contract without an early termination charge."),
        ],
    },
    "line-faults-and-engineers": {
        "title": "Line faults, dropouts and engineer visits",
        "sections": [
            ("What the Hub lights mean", "White: connected. Flashing white: starting up or connecting. Orange: the "
             "line is connected but the internet isn't. Red: no line signal. On full fibre, also check the ONT, the "
             "box on the wall where the fibre enters: if it has no lights at all, check its power supply."),
            ("Dropouts and noise on FTTC lines", "On Superfast (FTTC) lines the broadband runs over the copper phone "
             "line from the street cabinet. Crackling on the phone, drops when it rains, and falling speeds point "
             "to a line fault. Plug the Hub into the test socket behind the master socket's faceplate: if the "
             "problem goes away there, the fault is in your home's wiring; if not, it's on the line or in the "
             "cabinet and we'll arrange a repair."),
            ("Why your line speed dropped after restarts", "Lines are managed automatically. If a line disconnects "
             "many times in a short period, including from restarting the router, it may be moved to a slower, "
             "more stable profile. Leave the Hub on for a few days and the speed normally recovers on its own."),
            ("Booking an engineer and charges", "If our tests find a fault outside your home, the engineer visit is "
             "free. If the engineer finds the fault is in your own wiring or equipment, a charge may apply, which "
             "we'll tell you about before booking. If an engineer misses an appointment, you get automatic "
             "compensation."),
        ],
    },
    "outages-and-service-status": {
        "title": "Outages and service status",
        "sections": [
            ("Checking for an outage in your area", "Enter your postcode on the service status page or in the app "
             "to see known problems and planned work in your area. New outages can take a little while to appear "
             "while engineers confirm them, so if your neighbours are also offline please report it."),
            ("What to do when your internet is completely down", "Check the Hub and ONT lights, restart the Hub "
             "once, and run the line test in the app. If the status page shows an outage, you don't need to "
             "report it: your service will come back by itself when it's fixed. Restarting repeatedly doesn't "
             "help."),
            ("Automatic compensation", "If your broadband is off for more than two full working days after you "
             "report it, or a repair or installation appointment is missed, compensation is added to your bill "
             "automatically. You don't need to claim it."),
        ],
    },
    "dns-ipv6-and-your-own-router": {
        "title": "DNS, IPv6 and using your own router",
        "sections": [
            ("Fibrelink DNS and using other DNS servers", "Your Hub uses Fibrelink's DNS servers, which turn website "
             "names into addresses. If sites won't open but apps that are already connected keep working, the "
             "problem is usually DNS. You can set other DNS servers on the Hub under Advanced > LAN, or on a "
             "single device. If you point the Hub at a DNS server on your own network, such as a Pi-hole, it "
             "must be running for anything to work."),
            ("SafeLink family filter", "SafeLink blocks categories of websites for every device in the home. A "
             "blocked site shows a SafeLink page or fails to load. The account holder can turn it on or off, and "
             "allow individual sites, in the app under Broadband > SafeLink."),
            ("IPv6 on Fibrelink", "Every line gets IPv6: the Hub receives a /56 prefix and gives addresses to your "
             "devices. If some sites hang or test-ipv6.com shows no IPv6 support, restart the Hub and check the "
             "Status page shows an IPv6 prefix. You can turn IPv6 off under Advanced > IPv6 if you need to."),
            ("Using your own router", "Put the Hub into modem mode under Advanced > Modem mode and connect your "
             "router to it, or to the ONT directly on full fibre. Use PPPoE with the username from your welcome "
             "email. For IPv6, enable DHCPv6 prefix delegation on the WAN and request a /56."),
        ],
    },
    "port-forwarding-and-public-ip": {
        "title": "Port forwarding, CGNAT and static IP addresses",
        "sections": [
            ("Setting up port forwarding", "Port forwarding lets connections from the internet reach a device at "
             "home, such as a CCTV recorder, a game server or Plex. Reserve a fixed local address for the device "
             "under Advanced > LAN > DHCP reservations first, then add the forward under Advanced > Port "
             "forwarding. If the device's local address changes, the forward stops working."),
            ("CGNAT and how to get your own public IP", "Some lines share a public IPv4 address with other "
             "customers (carrier-grade NAT, or CGNAT). If the WAN address on your Hub starts with 100.64 to "
             "100.127, you're on CGNAT: outgoing connections work normally, but incoming connections, port "
             "forwarding and some game hosting don't. You can opt out for free in the app under Broadband > "
             "Public IP address; it takes effect the next time the Hub reconnects."),
            ("Double NAT and NAT type for games", "If you plug your own router into the Hub without putting the "
             "Hub into modem mode, both do NAT and consoles report double NAT or a strict NAT type. Use modem mode, "
             "or turn on UPnP on the router that faces the internet."),
            ("Static IP addresses for business", "Business plans can add one static IPv4 address or a block of five "
             "(/29). A static address never changes, so it can be allow-listed by suppliers, used for VPNs and for "
             "hosting. It is usually live within 24 hours of ordering. We can also set reverse DNS (PTR) records "
             "for static addresses on request."),
        ],
    },
    "fibrelink-email": {
        "title": "Fibrelink email",
        "sections": [
            ("Email app settings", "To use Fibrelink email in Outlook, Apple Mail, Thunderbird or another app, use "
             "incoming server mail.fibrelink.net with IMAP on port 993 (SSL), and outgoing server "
             "mail.fibrelink.net on port 587 (STARTTLS). The username is your full email address. The old servers "
             "pop3.fibrelink.net and smtp.fibrelink.net have been retired, so apps still using them will fail to "
             "connect or keep asking for your password."),
            ("Passwords and locked accounts", "Reset your email password in the app under Email > Password. After "
             "repeated failed sign-ins, the account is locked for security; this often happens when an old phone "
             "or tablet keeps trying a previous password. Update every device after a password change."),
            ("Mailbox storage", "Each mailbox holds 5 GB. When it is full, new messages are returned to the sender. "
             "Delete large old messages and empty the Deleted folder to make space."),
            ("Keeping your email if you leave", "If you leave Fibrelink, you can keep your email address for £3 a "
             "month. Otherwise the mailbox is closed 90 days after your broadband ends."),
        ],
    },
    "bills-and-direct-debits": {
        "title": "Bills and direct debits",
        "sections": [
            ("Understanding your first bill", "Your first bill covers the days from activation to your bill date, the "
             "next month in advance and any one-off set-up charge, so it is usually larger than later bills."),
            ("Direct debit dates and changing them", "You can pay on the 1st, 8th, 15th or 28th of the month. Change "
             "the date in the app under Account > Payments; the next bill will be adjusted for the extra days."),
            ("Price changes", "Your monthly price rises once a year by the fixed amount stated in your contract. We "
             "tell you by email at least 30 days before it takes effect."),
            ("Charged twice or refunds", "If a payment was taken twice or a refund is due, contact us and we will "
             "return it to your bank within 3 to 5 working days. Bank charges caused by our mistake are refunded "
             "too. You are also protected by the Direct Debit Guarantee, which lets you ask your bank for an "
             "immediate refund."),
        ],
    },
    "installation-and-moving-home": {
        "title": "Installation and moving home",
        "sections": [
            ("Your installation appointment", "An Openreach engineer installs full fibre, usually in a morning (8am "
             "to 1pm) or afternoon (1pm to 6pm) slot. Someone over 18 must be at home. You can check or change the "
             "appointment in the app, and you'll get a text the day before. If nobody has arrived by the end of "
             "the slot, contact us: a missed appointment is compensated automatically."),
            ("Flats and landlord permission", "In flats and rented buildings, Openreach may need written permission "
             "from the landlord or managing agent (a wayleave) to run fibre through shared areas. The order is on "
             "hold until it is signed, and we'll tell you who needs to sign."),
            ("Moving home with Fibrelink", "Tell us about your move at least 14 days before your moving date, from "
             "the Moving home page or the app. Check that the new address, including the flat number, is correct "
             "on your confirmation email. If the line at your new home is still in use by the previous occupant's "
             "provider, we can order a new line instead. We can lend you a 4G router to cover any gap."),
        ],
    },
    "contracts-and-your-account": {
        "title": "Contracts, cancelling and your account",
        "sections": [
            ("When your contract ends", "Your minimum term end date is shown in the app under Account > Contract. "
             "We'll contact you before it ends with your best available price. After the end date you can leave "
             "without any charge or re-contract."),
            ("Cancelling and early termination charges", "Give 30 days' notice in the app or by phone. If you leave "
             "before your minimum term ends, an early termination charge applies for the remaining months, unless "
             "you are leaving because we couldn't fix your speed or you are moving to an address we can't serve. "
             "If you switch to another provider, they can arrange it for you and you don't need to contact us."),
            ("Returning your Hub and mesh discs", "When you leave, we'll send a prepaid returns bag. Return the Hub "
             "and any mesh discs within 30 days to avoid a non-return charge. You don't need to return the ONT on "
             "the wall."),
            ("Signing in to the Fibrelink app", "Sign in with the email address on your account. We send a "
             "six-digit code by text to the mobile number on the account to confirm it's you. If the code doesn't "
             "arrive, check the number in your account details on the website, or ask us to update it."),
        ],
    },
}

QUERIES = [
    {"q": "how do I opt out of CGNAT", "answers": ["port-forwarding-and-public-ip#2"], "kind": "plain"},
    {"q": "my WAN IP is 100.64 something and port forwards stopped working",
     "answers": ["port-forwarding-and-public-ip#2", "port-forwarding-and-public-ip#1"], "kind": "symptom"},
    {"q": "can't watch my security cameras when I'm out of the house",
     "answers": ["port-forwarding-and-public-ip#2", "port-forwarding-and-public-ip#1"], "kind": "paraphrase"},
    {"q": "xbox says double nat", "answers": ["port-forwarding-and-public-ip#3"], "kind": "terse"},
    {"q": "get a fixed IP address for the office so a supplier can whitelist us",
     "answers": ["port-forwarding-and-public-ip#4"], "kind": "task"},
    {"q": "the -5G network keeps disappearing from my phone",
     "answers": ["wifi-and-mesh#3", "wifi-and-mesh#1", "wifi-and-mesh#4"], "kind": "symptom"},
    {"q": "mesh disc light orange", "answers": ["wifi-and-mesh#2"], "kind": "terse"},
    {"q": "old laptop only sees one of the two wireless networks", "answers": ["wifi-and-mesh#1"],
     "kind": "paraphrase"},
    {"q": "wifi slow in my block of flats, so many networks around", "answers": ["wifi-and-mesh#4"],
     "kind": "symptom"},
    {"q": "internet crawls every night but is fine in the morning",
     "answers": ["speed-and-performance#2", "speed-and-performance#1"], "kind": "paraphrase"},
    {"q": "how should I test my broadband speed properly", "answers": ["speed-and-performance#1"], "kind": "plain"},
    {"q": "lag spikes and packet loss in games, traceroute attached",
     "answers": ["speed-and-performance#3", "speed-and-performance#2"], "kind": "symptom"},
    {"q": "speed below what was promised, can i leave my contract",
     "answers": ["speed-and-performance#4", "contracts-and-your-account#2"], "kind": "task"},
    {"q": "router light red", "answers": ["line-faults-and-engineers#1", "outages-and-service-status#2"],
     "kind": "terse"},
    {"q": "broadband keeps disconnecting and the phone crackles when it rains",
     "answers": ["line-faults-and-engineers#2"], "kind": "symptom"},
    {"q": "speed went down after I kept rebooting the router", "answers": ["line-faults-and-engineers#3"],
     "kind": "symptom"},
    {"q": "will I be charged if the engineer comes out", "answers": ["line-faults-and-engineers#4"],
     "kind": "paraphrase"},
    {"q": "is there an outage in my postcode", "answers": ["outages-and-service-status#1"], "kind": "plain"},
    {"q": "compensaton for no internet for 3 days", "answers": ["outages-and-service-status#3"], "kind": "typo"},
    {"q": "websites wont load but whatsapp still works", "answers": ["dns-ipv6-and-your-own-router#1"],
     "kind": "typo"},
    {"q": "unblock a website the family filter is stopping", "answers": ["dns-ipv6-and-your-own-router#2"],
     "kind": "task"},
    {"q": "test-ipv6 0/10", "answers": ["dns-ipv6-and-your-own-router#3"], "kind": "terse"},
    {"q": "use my own router instead of the hub, pppoe settings", "answers": ["dns-ipv6-and-your-own-router#4"],
     "kind": "task"},
    {"q": "outlook keeps asking for my email password", "answers": ["fibrelink-email#1", "fibrelink-email#2"],
     "kind": "symptom"},
    {"q": "what are the imap and smtp servers", "answers": ["fibrelink-email#1"], "kind": "plain"},
    {"q": "freinds emails to me are bouncing back", "answers": ["fibrelink-email#3"], "kind": "typo"},
    {"q": "taken two payments this month", "answers": ["bills-and-direct-debits#4"], "kind": "terse"},
    {"q": "why was the first invoice so much bigger than the monthly price",
     "answers": ["bills-and-direct-debits#1"], "kind": "paraphrase"},
    {"q": "move my payment date to later in the month", "answers": ["bills-and-direct-debits#2"], "kind": "task"},
    {"q": "engineer never showed up for my fibre install", "answers": ["installation-and-moving-home#1"],
     "kind": "symptom"},
    {"q": "Hi, we're moving from our house into a flat in a converted building at the end of next month. What do I "
          "need to do so the broadband works on the day, and what happens if the landlord has to agree to the "
          "cables or the people who lived there before haven't cancelled theirs?",
     "answers": ["installation-and-moving-home#3", "installation-and-moving-home#2"], "kind": "long"},
    {"q": "My contract finishes soon and I'm thinking of going to another provider because they're cheaper. Do I "
          "have to ring you to cancel or will they sort it, will there be a charge, and what do I do with the "
          "router and the little white discs?",
     "answers": ["contracts-and-your-account#2", "contracts-and-your-account#3", "contracts-and-your-account#1"],
     "kind": "long"},
]
