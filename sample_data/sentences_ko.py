"""The sample evaluation set's sentences: (domain, English source, Korean reference) triples.

Every sentence here was written for this project (no corpus text); see ``README.md`` beside this file. The files
``ref.txt``/``src.txt``/``systems/*.txt``/``human.tsv`` are generated from this list by ``make_sample.py``.
"""

from __future__ import annotations

SENTENCES: list[tuple[str, str, str]] = [
    # ---- news ----------------------------------------------------------------------------------------------
    (
        "news",
        "The government announced that it will reduce electric vehicle subsidies to a maximum of 5 million won starting next year.",
        "정부는 내년부터 전기차 보조금을 최대 500만 원까지 줄이기로 했다고 밝혔다.",
    ),
    (
        "news",
        "The Bank of Korea kept its base rate at 3.5% a year, judging that inflationary pressure is still strong.",
        "한국은행은 물가 상승 압력이 여전히 크다고 판단해 기준금리를 연 3.5%로 동결했다.",
    ),
    (
        "news",
        "Seoul City plans to run 12 new late-night bus routes starting in October.",
        "서울시는 오는 10월부터 심야 버스 노선 12개를 새로 운영할 예정이다.",
    ),
    (
        "news",
        "Last year the number of births in Korea was about 230,000, the lowest on record.",
        "지난해 국내 출생아 수는 약 23만 명으로 역대 최저를 기록했다.",
    ),
    (
        "news",
        "Police are investigating the cause of the accident, and the three injured were taken to a nearby hospital.",
        "경찰은 사고 원인을 조사하고 있으며 부상자 3명은 인근 병원으로 옮겨졌다.",
    ),
    (
        "news",
        "Samsung Electronics announced that its third-quarter operating profit rose 27% from a year earlier.",
        "삼성전자는 3분기 영업이익이 전년 같은 기간보다 27% 늘었다고 발표했다.",
    ),
    (
        "news",
        "The Korea Meteorological Administration expects up to 80 mm of rain in the southern regions this weekend.",
        "기상청은 이번 주말 남부 지방에 최대 80mm의 비가 내릴 것으로 예상했다.",
    ),
    (
        "news",
        "The National Assembly held a plenary session yesterday and passed the bill with 180 votes in favour.",
        "국회는 어제 본회의를 열고 관련 법안을 찬성 180표로 통과시켰다.",
    ),
    (
        "news",
        'According to the survey, 62% of office workers said they "support introducing a four-day week."',
        '이번 조사에 따르면 직장인의 62%가 "주 4일제 도입에 찬성한다"고 답했다.',
    ),
    (
        "news",
        "The World Health Organization (WHO) warned that surveillance of the new variant must be strengthened.",
        "세계보건기구(WHO)는 새로운 변이 바이러스에 대한 감시를 강화해야 한다고 경고했다.",
    ),
    (
        "news",
        "Exports in the first half of this year reached 312 billion dollars, a slight increase on last year.",
        "올해 상반기 수출액은 3,120억 달러로 작년보다 소폭 증가했다.",
    ),
    (
        "news",
        "Civic groups demanded a review, saying the public hearing had been a mere formality.",
        "시민단체들은 공청회가 형식적으로 진행됐다며 재검토를 요구했다.",
    ),
    (
        "news",
        "The Busan International Film Festival opens today and will screen about 200 films from 64 countries over ten days.",
        "부산국제영화제가 오늘 개막해 열흘 동안 64개국 작품 200여 편을 상영한다.",
    ),
    (
        "news",
        "The Ministry of Education said it will also offer high school textbooks in digital form from the 2026 school year.",
        "교육부는 2026학년도부터 고등학교 교과서를 디지털 형태로도 제공하겠다고 밝혔다.",
    ),
    (
        "news",
        "Experts predicted that housing prices will stay stable for the time being.",
        "전문가들은 부동산 가격이 당분간 안정세를 보일 것이라고 전망했다.",
    ),
    (
        "news",
        'At a press conference that day, the president stressed that "economic recovery is the most urgent task."',
        '대통령은 이날 기자회견에서 "경제 회복이 가장 시급한 과제"라고 강조했다.',
    ),
    (
        "news",
        "The fire started on the second floor of the factory at around 4 a.m. and was fully put out about three hours later.",
        "화재는 오전 4시쯤 공장 2층에서 시작됐으며 약 3시간 만에 완전히 진화됐다.",
    ),
    (
        "news",
        "The government and labour groups have still not narrowed their differences over the size of the minimum wage rise.",
        "정부와 노동계는 최저임금 인상 폭을 두고 여전히 입장 차이를 좁히지 못하고 있다.",
    ),
    (
        "news",
        "The company is preparing to list on KOSDAQ in the first half of next year.",
        "이 회사는 내년 상반기 코스닥(KOSDAQ) 상장을 목표로 준비 중이다.",
    ),
    (
        "news",
        "The European Union (EU) published detailed implementation guidelines for its artificial intelligence act and said they will apply in stages from 2026.",
        "유럽연합(EU)은 인공지능 규제 법안의 세부 시행 지침을 공개하고 2026년부터 단계적으로 적용하겠다고 밝혔다.",
    ),
    (
        "news",
        "As the population of small provincial towns shrinks faster, more and more elementary schools are closing.",
        "지방 소도시의 인구 감소가 빨라지면서 문을 닫는 초등학교도 늘고 있다.",
    ),
    (
        "news",
        "A drug developed by a Korean research team proved effective in a phase 3 clinical trial.",
        "국내 연구진이 개발한 치료제가 임상 3상 시험에서 효과를 입증했다.",
    ),
    (
        "news",
        "The Olympic football team beat Japan 2-1 in the final and won the gold medal for the first time in 24 years.",
        "올림픽 축구 대표팀은 결승전에서 일본을 2대 1로 꺾고 24년 만에 처음으로 금메달을 차지했다.",
    ),
    (
        "news",
        "To support small business owners struggling with high interest rates and weak spending, the government announced it will launch a low-interest loan programme "
        "worth 2 trillion won in total from the end of this month and simplify the application process online, with a loan ceiling of 50 million won per business.",
        "정부는 고금리와 소비 위축으로 어려움을 겪는 소상공인을 지원하기 위해 총 2조 원 규모의 저금리 대출 프로그램을 이달 말부터 시행하고, "
        "신청 절차도 온라인으로 간소화하겠다고 발표했으며, 업체당 대출 한도는 최대 5,000만 원이다.",
    ),
    # ---- customer support ------------------------------------------------------------------------------------
    (
        "support",
        "The item you ordered left our warehouse this morning and is expected to arrive before 6 p.m. tomorrow.",
        "주문하신 상품은 오늘 오전에 출고되었으며 내일 오후 6시 전에 도착할 예정입니다.",
    ),
    (
        "support",
        "If you have forgotten your password, please tap 'Find password' on the login screen.",
        "비밀번호를 잊으셨다면 로그인 화면에서 '비밀번호 찾기'를 눌러 주세요.",
    ),
    (
        "support",
        "We apologise for the inconvenience. We will get back to you within 24 hours after checking.",
        "불편을 드려 죄송합니다. 확인 후 24시간 안에 다시 연락드리겠습니다.",
    ),
    (
        "support",
        "Refunds are made to the card you paid with within 3 to 5 business days.",
        "환불은 결제하신 카드로 영업일 기준 3~5일 안에 처리됩니다.",
    ),
    (
        "support",
        "Could you update the app to the latest version and try again?",
        "앱을 최신 버전으로 업데이트한 후 다시 시도해 보시겠어요?",
    ),
    (
        "support",
        "Your account has been temporarily locked for security reasons because several login attempts from another device were detected.",
        "고객님의 계정은 다른 기기에서 로그인 시도가 여러 번 감지되어 보안상의 이유로 일시적으로 잠겨 있습니다.",
    ),
    (
        "support",
        "The delivery address can only be changed until the item has been shipped.",
        "배송지 변경은 상품이 출고되기 전까지만 가능합니다.",
    ),
    (
        "support",
        "If you email us a copy of the receipt, we will process it right away.",
        "영수증 사본을 이메일로 보내 주시면 바로 처리해 드리겠습니다.",
    ),
    (
        "support",
        "Because of a high number of requests, connections are delayed. Please wait a moment, or leave a message on "
        "the 1:1 inquiry board on our website and we will answer in order.",
        "현재 상담 요청이 많아 연결이 지연되고 있습니다. 잠시만 기다려 주시거나 홈페이지의 1:1 "
        "문의 게시판에 남겨 주시면 순서대로 답변해 드리겠습니다.",
    ),
    (
        "support",
        "If the product is faulty, we repair it free of charge for one year from the date of purchase.",
        "제품에 이상이 있는 경우 구매일로부터 1년 동안 무상으로 수리해 드립니다.",
    ),
    (
        "support",
        "Plan changes take effect on the 1st of each month; if you change mid-month, the fee is prorated.",
        "요금제 변경은 매월 1일에 적용되며 중간에 변경하시면 요금이 일할 계산됩니다.",
    ),
    (
        "support",
        "If the Wi-Fi does not connect, try turning the router off and on again.",
        "와이파이(Wi-Fi)가 연결되지 않으면 공유기 전원을 껐다가 다시 켜 보세요.",
    ),
    (
        "support",
        "The coupon you asked about has already expired and cannot be applied.",
        "문의하신 쿠폰은 이미 사용 기간이 지나 적용할 수 없습니다.",
    ),
    (
        "support",
        "If you would like an exchange, you must apply within 7 days of receiving the item.",
        "교환을 원하시면 상품을 받으신 날로부터 7일 이내에 신청해 주셔야 합니다.",
    ),
    (
        "support",
        "If the payment error persists, please use another card or call the customer centre.",
        "결제 오류가 계속되면 다른 카드를 사용하시거나 고객센터로 전화해 주세요.",
    ),
    (
        "support",
        "If you close your membership, all accumulated points disappear and cannot be restored.",
        "회원 탈퇴를 하시면 적립된 포인트는 모두 사라지며 복구할 수 없습니다.",
    ),
    (
        "support",
        "We have passed the problem you described to our technical team and will let you know the result by text message.",
        "말씀하신 문제는 저희 기술팀에 전달했으며 처리 결과를 문자로 안내해 드리겠습니다.",
    ),
    (
        "support",
        "This item is currently sold out, but it is due to be restocked next Wednesday.",
        "해당 상품은 현재 품절이지만 다음 주 수요일에 재입고될 예정입니다.",
    ),
    (
        "support",
        "If you tell me your order number, I will check the delivery status for you.",
        "고객님, 주문 번호를 알려 주시면 배송 상태를 확인해 드릴게요.",
    ),
    (
        "support",
        "If the verification code does not arrive, please check your spam folder first.",
        "인증 번호가 오지 않으면 스팸 메시지함을 먼저 확인해 주시기 바랍니다.",
    ),
    (
        "support",
        "This maintenance runs from 2 a.m. to 5 a.m., and the service will be unavailable during that time.",
        "이번 점검은 새벽 2시부터 5시까지 진행되며 그동안 서비스를 이용하실 수 없습니다.",
    ),
    (
        "support",
        "If the printer does not print, check that the USB cable is connected properly.",
        "프린터가 인쇄를 하지 않으면 USB 케이블이 제대로 연결되어 있는지 확인해 보세요.",
    ),
    (
        "support",
        "Thank you for your valuable feedback. We will work hard to offer a better service.",
        "소중한 의견을 주셔서 감사합니다. 더 나은 서비스를 위해 노력하겠습니다.",
    ),
    (
        "support",
        "Once the returned item reaches the logistics centre, the refund is completed within two days after inspection; "
        "please understand that if the packaging is damaged or parts are missing, a round-trip shipping fee of 6,000 won may be deducted from the refund.",
        "반품 상품이 물류센터에 도착하면 검수를 거쳐 2일 안에 환불이 완료되며, 포장이 훼손되었거나 구성품이 빠진 "
        "경우에는 환불 금액에서 왕복 배송비 6,000원이 차감될 수 있다는 점 양해 부탁드립니다.",
    ),
    # ---- travel -----------------------------------------------------------------------------------------------
    (
        "travel",
        "From Incheon Airport to the city centre it takes about 50 minutes on the airport railroad.",
        "인천공항에서 시내까지는 공항철도를 타면 약 50분이 걸립니다.",
    ),
    (
        "travel",
        "At this hotel check-in starts at 3 p.m. and check-out is by 11 a.m.",
        "이 호텔은 체크인이 오후 3시부터이고 체크아웃은 오전 11시까지입니다.",
    ),
    (
        "travel",
        "If you go to Jeju Island, be sure to climb Hallasan. The view from the top is really wonderful.",
        "제주도에 가면 꼭 한라산에 올라 보세요. 정상에서 보는 풍경이 정말 멋져요.",
    ),
    (
        "travel",
        "KTX trains to Busan leave Seoul Station every 30 minutes on weekdays, and at weekends they run even more often.",
        "부산행 KTX는 서울역에서 평일 기준 30분마다 출발하며, 주말에는 배차 간격이 더 짧아집니다.",
    ),
    (
        "travel",
        "If you have lost your passport, contact the nearest embassy or consulate immediately.",
        "여권을 잃어버렸다면 가까운 대사관이나 영사관에 바로 연락하세요.",
    ),
    (
        "travel",
        "The museum is closed every Monday, and admission is 5,000 won for adults.",
        "박물관은 매주 월요일에 휴관하며 입장료는 성인 기준 5,000원입니다.",
    ),
    (
        "travel",
        "At Gyeongbokgung Palace you can get in for free if you wear hanbok.",
        "경복궁에서는 한복을 입으면 무료로 입장할 수 있어요.",
    ),
    (
        "travel",
        "The plane took off about two hours late because of fog.",
        "비행기가 안개 때문에 두 시간 정도 늦게 출발했어요.",
    ),
    (
        "travel",
        "Is there an ATM near here where I can take out cash?",
        "이 근처에 현금을 뽑을 수 있는 ATM이 있을까요?",
    ),
    (
        "travel",
        "To cancel your booking without a fee, you must tell us at least 48 hours before arrival.",
        "숙소 예약을 취소하려면 도착 48시간 전까지 알려 주셔야 수수료가 없습니다.",
    ),
    (
        "travel",
        "Take subway Line 2, get off at Gangnam Station and leave by Exit 11.",
        "지하철 2호선을 타고 강남역에서 내린 다음 11번 출구로 나오세요.",
    ),
    (
        "travel",
        "Jeonju Hanok Village is packed with tourists at weekends, so it is better to visit on a weekday.",
        "전주 한옥마을은 주말이면 관광객으로 매우 붐비니 평일에 방문하는 것이 좋습니다.",
    ),
    (
        "travel",
        "To rent a car on Jeju you need an international driving permit, a passport and a credit card in your own name.",
        "제주도에서 렌터카를 빌리려면 국제운전면허증과 여권, 그리고 본인 명의의 신용카드가 필요합니다.",
    ),
    (
        "travel",
        "The autumn leaves on Seoraksan are usually at their most beautiful in mid-October.",
        "설악산 단풍은 보통 10월 중순에 가장 아름답습니다.",
    ),
    (
        "travel",
        "If your luggage is too heavy, you may have to pay an extra fee at the airport.",
        "짐이 너무 무거우면 공항에서 추가 요금을 내야 할 수도 있어요.",
    ),
    (
        "travel",
        'The guide said several times, "The bus leaves at exactly 9, so don\'t be late."',
        '가이드는 "버스가 정확히 9시에 출발하니 늦지 마세요"라고 여러 번 말했다.',
    ),
    (
        "travel",
        "This restaurant is popular with locals, so at lunchtime you have to wait more than 30 minutes.",
        "이 식당은 현지인들에게 인기가 많아서 점심시간에는 30분 넘게 기다려야 해요.",
    ),
    (
        "travel",
        "A transit card can be bought and topped up at convenience stores and works on both buses and the subway.",
        "교통카드는 편의점에서 사서 충전할 수 있고 버스와 지하철에서 모두 쓸 수 있습니다.",
    ),
    (
        "travel",
        "Using a card abroad may add a fee of around 1-2%.",
        "해외에서 카드를 쓰면 1~2% 정도의 수수료가 붙을 수 있습니다.",
    ),
    (
        "travel",
        "We got up at 5 a.m. to watch the sun rise on the beach at Gangneung.",
        "우리는 강릉 바닷가에서 해가 뜨는 것을 보려고 새벽 5시에 일어났다.",
    ),
    (
        "travel",
        "Goods bought at the duty-free shop can be collected at the airport pick-up desk when you leave the country.",
        "면세점에서 산 물건은 출국할 때 공항 인도장에서 받으실 수 있습니다.",
    ),
    (
        "travel",
        "In peak season air fares almost double, so it is better to book early.",
        "성수기에는 항공권 가격이 두 배 가까이 오르기 때문에 미리 예매하는 것이 좋아요.",
    ),
    (
        "travel",
        "If you take the free shuttle bus from the hotel lobby, it is only 15 minutes to downtown.",
        "호텔 로비에서 무료 셔틀버스를 타면 시내 중심가까지 15분밖에 안 걸려요.",
    ),
    (
        "travel",
        "The left-luggage office is on the 3rd floor, and a day costs 4,000 won for a small bag.",
        "짐 보관소는 3층에 있으며 하루 이용료는 소형 가방 기준 4,000원입니다.",
    ),
    (
        "travel",
        "Announcement: this train will shortly arrive at Daejeon Station. The doors will open on the right.",
        "안내 방송: 잠시 후 이 열차는 대전역에 도착합니다. 내리실 문은 오른쪽입니다.",
    ),
    (
        "travel",
        "Travel insurance compensates you if you are suddenly injured or robbed during your trip, but since cover and limits "
        "differ from policy to policy, it is a good idea to read the terms carefully before you leave.",
        "여행자 보험에 가입하면 여행 중에 갑자기 다치거나 물건을 도난당했을 때 보상을 받을 수 있지만, 보상 범위와 "
        "한도는 상품마다 다르므로 출발 전에 약관을 꼼꼼히 읽어 보는 것이 좋습니다.",
    ),
    # ---- science and technology -----------------------------------------------------------------------------
    (
        "science",
        "Water boils at 100 degrees Celsius and freezes at 0 degrees.",
        "물은 섭씨 100도에서 끓고 0도에서 언다.",
    ),
    (
        "science",
        "NASA released the first pictures sent back by the new telescope.",
        "미국 항공우주국(NASA)은 새 망원경이 보낸 첫 사진을 공개했다.",
    ),
    ("science", "Light travels about 300,000 km in one second.", "빛은 1초에 약 30만 km를 이동한다."),
    (
        "science",
        "In mouse experiments the team confirmed that the substance reduces inflammation by almost 40%.",
        "연구팀은 쥐 실험에서 이 물질이 염증을 40% 가까이 줄인다는 사실을 확인했다.",
    ),
    (
        "science",
        "AI models can pick up the biases contained in their training data as they are.",
        "인공지능 모델은 학습 데이터에 포함된 편향을 그대로 배울 수 있다.",
    ),
    (
        "science",
        "DNA is made of four kinds of bases, and their order determines the genetic information.",
        "DNA는 네 종류의 염기로 이루어져 있으며 그 순서가 유전 정보를 결정한다.",
    ),
    (
        "science",
        "The Earth's average temperature has risen by about 1.1 degrees compared with pre-industrial times, and if the trend continues it could pass 1.5 degrees before 2040.",
        "지구의 평균 기온은 산업화 이전보다 약 1.1도 상승했으며, 이 추세가 이어지면 2040년 전에 1.5도를 넘을 수 있다.",
    ),
    (
        "science",
        "This battery can drive up to 500 km on a single charge.",
        "이 배터리는 한 번 충전으로 최대 500km를 달릴 수 있습니다.",
    ),
    (
        "science",
        "Quantum computers can solve certain problems much faster than conventional computers.",
        "양자컴퓨터는 특정 문제를 기존 컴퓨터보다 훨씬 빠르게 풀 수 있다.",
    ),
    (
        "science",
        "If the number of honeybees falls, crop production also suffers serious damage.",
        "꿀벌의 수가 줄어들면 농작물 생산에도 큰 피해가 생긴다.",
    ),
    (
        "science",
        "This paper proposes a new metric for evaluating the quality of machine translation and compares, across several languages, how well it agrees with human judgements.",
        "이 논문은 기계 번역의 품질을 평가하는 새로운 지표를 제안하고, 사람의 평가와 얼마나 일치하는지 여러 언어에서 비교한다.",
    ),
    (
        "science",
        "The Moon has almost no atmosphere, so the temperature difference between day and night exceeds 200 degrees.",
        "달에는 대기가 거의 없어서 낮과 밤의 온도 차이가 200도가 넘는다.",
    ),
    (
        "science",
        "Experimental results must be reproducible by other laboratories using the same method.",
        "실험 결과는 다른 연구실에서도 같은 방법으로 재현될 수 있어야 한다.",
    ),
    (
        "science",
        "A smartphone's GPS computes its position from signals received from several satellites.",
        "스마트폰의 GPS는 여러 위성에서 받은 신호를 이용해 위치를 계산한다.",
    ),
    (
        "science",
        "Immune cells track down and attack viruses that have entered the body, and they remember the same virus so that they respond faster if it comes back.",
        "면역 세포는 몸에 들어온 바이러스를 찾아내 공격하고, 같은 바이러스를 기억해 두었다가 다시 들어오면 더 빨리 대응한다.",
    ),
    (
        "science",
        "With this software update, data processing became about twice as fast.",
        "이번 소프트웨어 업데이트로 데이터 처리 속도가 약 2배 빨라졌습니다.",
    ),
    (
        "science",
        "Volcanic ash thrown out by an eruption can travel to areas thousands of kilometres away.",
        "화산 폭발로 분출된 화산재는 수천 km 떨어진 지역까지 날아갈 수 있다.",
    ),
    (
        "science",
        'The researchers said, "This result could be a clue to treating Alzheimer\'s disease."',
        '연구진은 "이 결과가 알츠하이머병 치료의 실마리가 될 수 있다"고 말했다.',
    ),
    (
        "science",
        "The efficiency of solar power falls as the temperature of the panels rises.",
        "태양광 발전의 효율은 패널의 온도가 높아질수록 떨어진다.",
    ),
    (
        "science",
        "This algorithm uses almost no extra memory even as the input grows.",
        "이 알고리즘은 입력 크기가 커져도 메모리를 거의 추가로 사용하지 않는다.",
    ),
    (
        "science",
        "Ocean acidification hinders the growth of coral reefs and shellfish.",
        "바닷물의 산성화는 산호초와 조개류의 성장을 방해한다.",
    ),
    (
        "science",
        "The International Space Station (ISS) circles the Earth about once every 90 minutes.",
        "국제우주정거장(ISS)은 약 90분마다 지구를 한 바퀴 돈다.",
    ),
    (
        "science",
        "Using too many antibiotics raises the risk that resistant bacteria will appear.",
        "항생제를 지나치게 많이 사용하면 내성균이 생길 위험이 커집니다.",
    ),
    (
        "science",
        "The team followed 1,200 participants nationwide for two years to study the link between sleep time and memory, "
        "and reported that people who slept less than six hours a day scored 15% lower on memory on average, even after accounting for sex and age.",
        "연구팀은 2년 동안 전국 1,200명의 참가자를 대상으로 수면 시간과 기억력의 관계를 추적 조사했으며, "
        "하루 6시간 미만으로 자는 사람들의 기억력 점수가 성별과 나이를 고려해도 평균 15% 낮았다고 보고했다.",
    ),
    # ---- everyday ---------------------------------------------------------------------------------------------
    (
        "everyday",
        "It looks like rain today, so make sure you take an umbrella.",
        "오늘 비가 올 것 같으니까 우산을 꼭 챙기세요.",
    ),
    (
        "everyday",
        "Every weekend I ride my bike along the Han River with my friends, and in the evening we eat fried chicken at a restaurant nearby.",
        "저는 주말마다 친구들과 한강에서 자전거를 타고 저녁에는 근처 식당에서 치킨을 먹어요.",
    ),
    ("everyday", "I'll set the alarm for 7 tomorrow morning.", "내일 아침 7시에 알람을 맞춰 놓을게요."),
    (
        "everyday",
        "I've been so busy lately that I mostly grab lunch at a convenience store.",
        "요즘 너무 바빠서 점심을 거의 편의점에서 해결하고 있어요.",
    ),
    (
        "everyday",
        "I made this kimchi stew the way my mother taught me.",
        "이 김치찌개는 어머니가 알려 주신 방법으로 끓였어요.",
    ),
    (
        "everyday",
        "My younger sister is getting married next month, so things at home are hectic these days.",
        "동생이 다음 달에 결혼해서 요즘 집안이 정신없어요.",
    ),
    (
        "everyday",
        "The car park was full, so I drove around the building for 20 minutes.",
        "주차장이 꽉 차서 건물 주변을 20분 동안 돌았어요.",
    ),
    (
        "everyday",
        "When you have a cold, the best thing is to drink warm water often and get plenty of rest.",
        "감기에 걸렸을 때는 따뜻한 물을 자주 마시고 푹 쉬는 게 제일이에요.",
    ),
    (
        "everyday",
        'The child shouted, "Mum, I can do this by myself!"',
        '아이가 "엄마, 나 이거 혼자 할 수 있어!"라고 소리쳤다.',
    ),
    (
        "everyday",
        "This month's electricity bill was more than 10,000 won higher than last month's.",
        "이번 달 전기 요금이 지난달보다 만 원 넘게 나왔어요.",
    ),
    (
        "everyday",
        "Could you stop by the supermarket on your way home and pick up some milk and eggs?",
        "퇴근길에 마트에 들러서 우유랑 달걀 좀 사 올래요?",
    ),
    (
        "everyday",
        "The film was longer than I expected, but I enjoyed it to the end.",
        "그 영화는 생각보다 길었지만 끝까지 재미있게 봤어요.",
    ),
    (
        "everyday",
        "My new flat is a five-minute walk from the station, so it is really convenient.",
        "새로 이사한 집은 역에서 걸어서 5분 거리라 정말 편해요.",
    ),
    (
        "everyday",
        "Next Friday is our team leader's birthday, so we decided to get a cake together.",
        "다음 주 금요일이 팀장님 생신이라 다 같이 케이크를 준비하기로 했어요.",
    ),
    (
        "everyday",
        "The puppy barked all night, so I didn't sleep a wink.",
        "강아지가 밤새 짖어서 한숨도 못 잤어요.",
    ),
    (
        "everyday",
        "Three months after I started exercising, I had lost 5 kg.",
        "운동을 시작한 지 3개월 만에 체중이 5kg 줄었어요.",
    ),
    (
        "everyday",
        "To get to Grandma's house I have to change buses twice.",
        "할머니 댁에 가려면 버스를 두 번 갈아타야 해요.",
    ),
    (
        "everyday",
        "This afternoon's meeting has run longer than I thought, so I'll probably be about 20 minutes late. Please go in and order first.",
        "오늘 오후 회의가 생각보다 길어져서 약속 시간에 20분쯤 늦을 것 같아요. 먼저 들어가서 주문해 주세요.",
    ),
    (
        "everyday",
        "The washing machine broke down, so a repair technician is coming tomorrow morning.",
        "세탁기가 고장 나서 서비스 기사님이 내일 오전에 오시기로 했어요.",
    ),
    (
        "everyday",
        "The lift in our apartment block was being serviced, so I took the stairs up to the 15th floor.",
        "우리 아파트 엘리베이터가 점검 중이라 15층까지 계단으로 올라갔어요.",
    ),
    (
        "everyday",
        "If I drink too much coffee, I can't sleep well at night.",
        "커피를 너무 많이 마시면 밤에 잠이 잘 안 와요.",
    ),
    (
        "everyday",
        "I started reading a book a friend recommended; at first it was a bit hard, but the more I read the more "
        "I got into it, so I finished it in two days and now I'm looking for other books the same author wrote ten years ago.",
        "친구가 추천해 준 책을 읽기 시작했는데, 처음에는 내용이 조금 어려웠지만 읽을수록 빠져들어서 결국 "
        "이틀 만에 다 읽었고 지금은 같은 작가가 10년 전에 쓴 다른 작품도 찾아보고 있어요.",
    ),
]
