<?php
// A SOAP client no one here wrote: PHP's SoapClient reads the WSDL at argv[1] (over TLS,
// trusting only the CA in argv[2]), calls each WSTest operation at the address the WSDL gives,
// and prints what came back, as JSON, for server/tests/it/interop.rs to check.
$context = stream_context_create(['ssl' => [
    'cafile' => $argv[2],
    'verify_peer' => true,
    'peer_name' => 'localhost',
]]);
$client = new SoapClient($argv[1], [
    'stream_context' => $context,
    'cache_wsdl' => WSDL_CACHE_NONE,
    'trace' => true,
    'exceptions' => true,
]);
$out = [];
$client->EchoVoid([]);
$out['EchoVoid'] = 'ok';
$reply = $client->EchoStruct(['array' => ['l' => [
    ['i' => 1, 'f' => 1.5, 's' => 'one'],
    ['i' => -2, 'f' => 2.25, 's' => 'two & <three>'],
]]]);
$out['EchoStruct'] = $reply->EchoStructResult->l;
$reply = $client->EchoList(['list' => [
    'i' => 1, 'f' => 0.5, 's' => 'a',
    'Next' => ['i' => 2, 'f' => 1.5, 's' => 'b'],
]]);
$out['EchoList'] = $reply->EchoListResult;
$reply = $client->EchoSynthetic(['synth' => [
    'Strng' => 'hello',
    'Strct' => ['i' => 3, 'f' => 3.5, 's' => 'x'],
    'Barray' => "\x00\x01\xff",
]]);
$synthetic = $reply->EchoSyntheticResult;
$out['EchoSynthetic'] = [
    'Strng' => $synthetic->Strng,
    'Strct' => $synthetic->Strct,
    'Barray' => base64_encode($synthetic->Barray),
];
$reply = $client->GetOrder(['orderId' => 7, 'customerId' => 9, 'messageSize' => 3]);
$order = $reply->GetOrderResult;
$out['GetOrder'] = [
    'OrderId' => $order->OrderId,
    'CustomerId' => $order->Customer->CustomerId,
    'LineItems' => count($order->LineItems->LineItem),
];
// Where the calls went: the request line and Host of the last one.
$out['last_request'] = strtok($client->__getLastRequestHeaders(), "\r\n");
echo json_encode($out), "\n";
