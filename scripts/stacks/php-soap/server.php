<?php
// The WSTest service on PHP's SoapServer (ext/soap) in WSDL mode, from the repository's WSDL,
// served by php-fpm behind nginx. The echoes answer with what ext/soap decoded; GetOrder builds
// the order of WSTest's OrderBL.getOrder as ours does ("Bil1" typo included).

const MAX_MESSAGE_SIZE = 100000;

final class TestService
{
    public function EchoVoid($request)
    {
        return new stdClass();
    }

    public function EchoStruct($request)
    {
        return ['EchoStructResult' => $request->array];
    }

    public function EchoList($request)
    {
        return ['EchoListResult' => $request->list ?? null];
    }

    public function EchoSynthetic($request)
    {
        return ['EchoSyntheticResult' => $request->synth ?? null];
    }

    public function GetOrder($request)
    {
        $count = (int) $request->messageSize;
        if ($count < 0 || $count > MAX_MESSAGE_SIZE) {
            throw new SoapFault('Client', 'GetOrder/messageSize must be between 0 and 100000');
        }
        $orderId = (int) $request->orderId;
        $id = (string) (int) $request->customerId;
        [$micro, $seconds] = explode(' ', microtime());
        $now = gmdate('Y-m-d\TH:i:s', (int) $seconds) . sprintf('.%03dZ', (int) ($micro * 1000));
        $address = fn (array $prefix) => [
            'FirstName' => $prefix[0] . $id,
            'LastName' => $prefix[1] . $id,
            'Address1' => $prefix[2] . $id,
            'Address2' => $prefix[3] . $id,
            'City' => $prefix[4] . $id,
            'State' => $prefix[5] . $id,
            'Zip' => '12345',
        ];
        $items = [];
        $description = 'Test Product ' . $id;
        for ($i = 1; $i <= $count; $i++) {
            $items[] = [
                'OrderId' => $orderId,
                'ItemId' => $i,
                'ProductId' => $i,
                'ProductDescription' => $description,
                'OrderQuantity' => 1,
                'UnitPrice' => 5.0,
            ];
        }
        return ['GetOrderResult' => [
            'OrderId' => $orderId,
            'OrderStatus' => 1,
            'OrderDate' => $now,
            'OrderTotalAmount' => 50.0,
            'Customer' => [
                'CustomerId' => (int) $id,
                'ContactFirstName' => 'FirstName ' . $id,
                'ContactLastName' => 'LastName ' . $id,
                'ContactPhone' => '425-882-8080',
                'LastActivityDate' => $now,
                'CreditCardNumber' => '892374389740',
                'CreditCardExpirationDate' => '12/12/2012',
                'BillingAddress' => $address(['Bill FirstName ', 'Bil1 LastName ', 'Bill StreetAddress ',
                    'Street Address Line 2 ', 'City ', 'State ']),
                'ShippingAddress' => $address(['Ship FirstName ', 'Ship LastName ', 'Ship StreetAddress ',
                    'Street Address Line 2 ', 'City ', 'State ']),
            ],
            'LineItems' => ['LineItem' => $items],
        ]];
    }
}

if (($_SERVER['REQUEST_METHOD'] ?? 'POST') !== 'POST') {
    http_response_code(405);
    exit;
}
$server = new SoapServer(__DIR__ . '/../../../wstest/wstest.wsdl', [
    'soap_version' => SOAP_1_1,
    'cache_wsdl' => WSDL_CACHE_MEMORY,
    'features' => SOAP_SINGLE_ELEMENT_ARRAYS,
]);
$server->setObject(new TestService());
$server->handle();
