// Drives a broker with Sarama (Debian's golang-github-shopify-sarama-dev 1.22.1), a Kafka client
// written from the protocol in Go, independently of the Java client, librdkafka and kafka-python.
// Sarama 1.22 speaks the protocol of Kafka 2.2 and older; it is configured here as for Kafka 2.1,
// the oldest version whose requests Kafka 4 still serves (KIP-896). Its consumer group asks for
// JoinGroup v1, which Kafka 4 no longer serves, so records are read with its partition consumer
// and offsets kept by its standalone offset manager (OffsetCommit v2, OffsetFetch v1).
//
// Two modes, each printing one "key value" line per fact for the Java test to check:
//
//	plain BOOTSTRAP TOPIC GROUP
//	    creates TOPIC (3 partitions); an idempotent acks=all producer per codec (none, gzip,
//	    snappy, lz4, zstd) sends 10 keyed records with a header. Sarama 1.22 sends Produce v3
//	    whatever its configured version, and a broker takes zstd batches from v7 on only, so the
//	    zstd ones are refused with UNSUPPORTED_COMPRESSION_TYPE (76), as Kafka refuses them.
//	    Reads the other 40 back from the oldest offset, commits the next offsets for GROUP and
//	    fetches them again; reads the partition ends; deletes the topic.
//
//	secure BOOTSTRAP CAFILE TOPIC GROUP
//	    over SASL_SSL (CAFILE: the broker's certificate): the SCRAM-SHA-512 user admin creates
//	    TOPIC; the SCRAM-SHA-256 user carol may not create topics; admin lets the PLAIN user alice
//	    write to TOPIC and carol read it in GROUP; alice sends three records and carol reads them
//	    and commits for GROUP; the OAUTHBEARER user dave (an unsecured token) may write once admin
//	    lets it; a wrong password is refused.
//
// Exits non-zero with a message when a step fails unexpectedly, and after 100 s in any case (so
// that the Java test sees how far it got rather than its own time-out).
package main

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"io/ioutil"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Shopify/sarama"
	"github.com/xdg-go/scram"
)

var codecs = []struct {
	name  string
	codec sarama.CompressionCodec
}{
	{"none", sarama.CompressionNone},
	{"gzip", sarama.CompressionGZIP},
	{"snappy", sarama.CompressionSnappy},
	{"lz4", sarama.CompressionLZ4},
	{"zstd", sarama.CompressionZSTD},
}

// lastSaid is the last fact printed, named when the program gives up.
var lastSaid atomic.Value

func say(key string, value interface{}) {
	fmt.Printf("%s %v\n", key, value)
	lastSaid.Store(key)
}

func check(step string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", step, err)
		os.Exit(1)
	}
}

func config() *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.V2_1_0_0
	c.ClientID = "sarama-compat"
	c.Net.DialTimeout = 10 * time.Second
	c.Metadata.Retry.Max = 10
	c.Metadata.Retry.Backoff = 200 * time.Millisecond
	c.Admin.Timeout = 30 * time.Second
	c.Consumer.Offsets.Retention = 24 * time.Hour // OffsetCommit v2; without a retention Sarama asks for v1
	return c
}

func producerConfig(c *sarama.Config, codec sarama.CompressionCodec) *sarama.Config {
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Compression = codec
	c.Producer.Idempotent = true
	c.Producer.Retry.Max = 5
	c.Net.MaxOpenRequests = 1 // what Sarama's idempotent producer requires
	c.Producer.Flush.Frequency = 5 * time.Millisecond
	return c
}

// read takes every record of topic's partitions from the oldest offset until count came or the
// deadline passed.
func read(client sarama.Client, topic string, count int) []*sarama.ConsumerMessage {
	consumer, err := sarama.NewConsumerFromClient(client)
	check("consumer", err)
	defer consumer.Close()
	partitions, err := client.Partitions(topic)
	check("partitions", err)
	messages := make(chan *sarama.ConsumerMessage, count)
	for _, p := range partitions {
		pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
		check("consume partition", err)
		defer pc.Close()
		go func(pc sarama.PartitionConsumer) {
			for m := range pc.Messages() {
				messages <- m
			}
		}(pc)
	}
	var got []*sarama.ConsumerMessage
	deadline := time.After(30 * time.Second)
	for len(got) < count {
		select {
		case m := <-messages:
			got = append(got, m)
		case <-deadline:
			return got
		}
	}
	return got
}

// commit marks, for group, the offset after the last record read in each partition, flushes it
// to the broker and returns the sum of the offsets the broker then answers.
func commit(client sarama.Client, group, topic string, records []*sarama.ConsumerMessage) int64 {
	next := map[int32]int64{}
	for _, m := range records {
		if m.Offset+1 > next[m.Partition] {
			next[m.Partition] = m.Offset + 1
		}
	}
	om, err := sarama.NewOffsetManagerFromClient(group, client)
	check("offset manager", err)
	for p, offset := range next {
		pom, err := om.ManagePartition(topic, p)
		check("manage partition", err)
		pom.MarkOffset(offset, "sarama")
		check("close partition offset manager", pom.Close())
	}
	check("close offset manager", om.Close()) // flushes what was marked

	coordinator, err := client.Coordinator(group)
	check("coordinator", err)
	request := &sarama.OffsetFetchRequest{Version: 1, ConsumerGroup: group}
	for p := range next {
		request.AddPartition(topic, p)
	}
	response, err := coordinator.FetchOffset(request)
	check("offset fetch", err)
	var sum int64
	for p := range next {
		block := response.GetBlock(topic, p)
		if block == nil || block.Err != sarama.ErrNoError {
			check("offset fetch block", fmt.Errorf("partition %d: %v", p, block))
		}
		sum += block.Offset
	}
	return sum
}

func header(m *sarama.ConsumerMessage, key string) string {
	for _, h := range m.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return ""
}

func plain(bootstrap, topic, group string) {
	brokers := []string{bootstrap}
	admin, err := sarama.NewClusterAdmin(brokers, config())
	check("admin", err)
	say("create", errorCode(admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1}, false)))

	for _, c := range codecs {
		producer, err := sarama.NewSyncProducer(brokers, producerConfig(config(), c.codec))
		check("producer "+c.name, err)
		var messages []*sarama.ProducerMessage
		for i := 0; i < 10; i++ {
			messages = append(messages, &sarama.ProducerMessage{Topic: topic,
				Key:     sarama.StringEncoder(fmt.Sprintf("k%d", i)),
				Value:   sarama.StringEncoder(fmt.Sprintf("%s-%d", c.name, i)),
				Headers: []sarama.RecordHeader{{Key: []byte("codec"), Value: []byte(c.name)}}})
		}
		if err := producer.SendMessages(messages); err != nil {
			say("produced", fmt.Sprintf("%s refused %v", c.name, errorCode(err)))
		} else {
			say("produced", fmt.Sprintf("%s %d", c.name, len(messages)))
		}
		check("close producer", producer.Close())
	}

	client, err := sarama.NewClient(brokers, config())
	check("client", err)
	records := read(client, topic, 10*(len(codecs)-1)) // zstd is refused: see the comment at the top
	intact := 0
	for _, m := range records {
		if strings.HasPrefix(string(m.Value), header(m, "codec")+"-") && strings.HasPrefix(string(m.Key), "k") {
			intact++
		}
	}
	say("consumed", len(records))
	say("intact", intact)
	say("committed", commit(client, group, topic, records))

	var ends int64
	for p := int32(0); p < 3; p++ {
		end, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		check("end offset", err)
		ends += end
	}
	say("end-offsets", ends)
	check("close client", client.Close())
	check("delete topic", admin.DeleteTopic(topic))
	say("deleted", "yes")
	check("close admin", admin.Close())
}

// scramClient adapts xdg-go/scram to Sarama's SCRAMClient.
type scramClient struct {
	hash func() hash.Hash
	conv *scram.ClientConversation
}

func (s *scramClient) Begin(user, password, authzID string) error {
	client, err := scram.HashGeneratorFcn(s.hash).NewClient(user, password, authzID)
	if err != nil {
		return err
	}
	s.conv = client.NewConversation()
	return nil
}

func (s *scramClient) Step(challenge string) (string, error) { return s.conv.Step(challenge) }
func (s *scramClient) Done() bool                            { return s.conv.Done() }

// unsecuredToken is an unsigned JWT (alg none) whose sub is the user, valid for an hour, as
// Kafka's default OAUTHBEARER validator accepts it.
type unsecuredToken struct{ user string }

func (t unsecuredToken) Token() (*sarama.AccessToken, error) {
	part := func(v interface{}) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now().Unix()
	return &sarama.AccessToken{Token: part(map[string]string{"alg": "none"}) + "." +
		part(map[string]interface{}{"sub": t.user, "iat": now, "exp": now + 3600}) + "."}, nil
}

func secured(cafile string, mechanism sarama.SASLMechanism, user, password string) *sarama.Config {
	pem, err := ioutil.ReadFile(cafile)
	check("CA file", err)
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		check("CA file", fmt.Errorf("no certificate in %s", cafile))
	}
	c := config()
	c.Net.TLS.Enable = true
	c.Net.TLS.Config = &tls.Config{RootCAs: roots}
	c.Net.SASL.Enable = true
	c.Net.SASL.Handshake = true
	c.Net.SASL.Mechanism = mechanism
	c.Net.SASL.User = user
	c.Net.SASL.Password = password
	switch mechanism {
	case sarama.SASLTypeSCRAMSHA256:
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: sha256.New} }
	case sarama.SASLTypeSCRAMSHA512:
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: sha512.New} }
	case sarama.SASLTypeOAuth:
		c.Net.SASL.TokenProvider = unsecuredToken{user}
	}
	return c
}

// errorCode is the Kafka error code of a topic or produce error, 0 for none, the message otherwise.
func errorCode(err error) interface{} {
	if err == nil {
		return 0
	}
	if topicErr, ok := err.(*sarama.TopicError); ok {
		return int16(topicErr.Err)
	}
	if kerr, ok := err.(sarama.KError); ok {
		return int16(kerr)
	}
	if errs, ok := err.(sarama.ProducerErrors); ok && len(errs) > 0 {
		return errorCode(errs[0].Err)
	}
	return err.Error()
}

func secure(bootstrap, cafile, topic, group string) {
	brokers := []string{bootstrap}
	admin, err := sarama.NewClusterAdmin(brokers, secured(cafile, sarama.SASLTypeSCRAMSHA512, "admin", "admin-secret"))
	check("admin", err)
	say("admin-create", errorCode(admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, false)))

	carol, err := sarama.NewClusterAdmin(brokers, secured(cafile, sarama.SASLTypeSCRAMSHA256, "carol", "carol-secret"))
	check("carol admin", err)
	say("carol-create", errorCode(carol.CreateTopic(topic+"-carol", &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, false)))
	check("close carol admin", carol.Close())

	// Sarama 1.22's admin asks for CreateAcls and DescribeAcls v0, which Kafka 4 no longer
	// serves; v1 (the resource pattern type) through its broker, as later Sarama versions ask.
	adminClient, err := sarama.NewClient(brokers, secured(cafile, sarama.SASLTypeSCRAMSHA512, "admin", "admin-secret"))
	check("admin client", err)
	defer adminClient.Close()
	controller, err := adminClient.Controller()
	check("controller", err)
	var creations []*sarama.AclCreation
	allow := func(principal string, operation sarama.AclOperation, resourceType sarama.AclResourceType, name string) {
		creations = append(creations, &sarama.AclCreation{
			Resource: sarama.Resource{ResourceType: resourceType, ResourceName: name, ResoucePatternType: sarama.AclPatternLiteral}, // sic, Sarama 1.22's spelling
			Acl:      sarama.Acl{Principal: principal, Host: "*", Operation: operation, PermissionType: sarama.AclPermissionAllow}})
	}
	allow("User:alice", sarama.AclOperationWrite, sarama.AclResourceTopic, topic)
	allow("User:carol", sarama.AclOperationRead, sarama.AclResourceTopic, topic)
	allow("User:carol", sarama.AclOperationRead, sarama.AclResourceGroup, group)
	allow("User:dave", sarama.AclOperationWrite, sarama.AclResourceTopic, topic)
	created, err := controller.CreateAcls(&sarama.CreateAclsRequest{Version: 1, AclCreations: creations})
	check("create ACLs", err)
	ok := 0
	for _, r := range created.AclCreationResponses {
		if r.Err == sarama.ErrNoError {
			ok++
		}
	}
	say("acls-created", ok)
	described, err := controller.DescribeAcls(&sarama.DescribeAclsRequest{Version: 1, AclFilter: sarama.AclFilter{
		ResourceType: sarama.AclResourceTopic, ResourceName: &topic, ResourcePatternTypeFilter: sarama.AclPatternLiteral,
		Operation: sarama.AclOperationAny, PermissionType: sarama.AclPermissionAny}})
	check("describe ACLs", err)
	n := 0
	for _, r := range described.ResourceAcls {
		n += len(r.Acls)
	}
	say("topic-acls", n)

	alice, err := sarama.NewSyncProducer(brokers, producerConfig(secured(cafile, sarama.SASLTypePlaintext, "alice", "alice-secret"), sarama.CompressionNone))
	check("alice producer", err)
	var offsets []string
	for i := 0; i < 3; i++ {
		_, offset, err := alice.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder(fmt.Sprintf("r%d", i))})
		check("alice send", err)
		offsets = append(offsets, fmt.Sprint(offset))
	}
	check("close alice", alice.Close())
	say("alice-offsets", strings.Join(offsets, ","))

	carolClient, err := sarama.NewClient(brokers, secured(cafile, sarama.SASLTypeSCRAMSHA256, "carol", "carol-secret"))
	check("carol client", err)
	var values []string
	records := read(carolClient, topic, 3)
	for _, m := range records {
		values = append(values, string(m.Value))
	}
	say("carol-read", strings.Join(values, ","))
	say("carol-committed", commit(carolClient, group, topic, records))
	check("close carol", carolClient.Close())

	daveConfig := secured(cafile, sarama.SASLTypeOAuth, "dave", "")
	dave, err := sarama.NewSyncProducer(brokers, producerConfig(daveConfig, sarama.CompressionNone))
	check("dave producer", err)
	_, offset, err := dave.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("from-dave")})
	check("dave send", err)
	say("dave-offset", offset)
	check("close dave", dave.Close())
	check("close admin", admin.Close())

	wrong := secured(cafile, sarama.SASLTypeSCRAMSHA512, "admin", "wrong")
	wrong.Metadata.Retry.Max = 0
	if c, err := sarama.NewClient(brokers, wrong); err != nil {
		say("wrong-password", "refused "+err.Error())
	} else {
		c.Close()
		say("wrong-password", "accepted")
	}
}

func main() {
	sarama.Logger = logger{}
	lastSaid.Store("(nothing yet)")
	time.AfterFunc(100*time.Second, func() { // before the Java test's deadline, so that its output is seen
		fmt.Fprintf(os.Stderr, "gave up after 100 s; the last fact printed: %v\n", lastSaid.Load())
		os.Exit(3)
	})
	switch {
	case len(os.Args) == 5 && os.Args[1] == "plain":
		plain(os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 6 && os.Args[1] == "secure":
		secure(os.Args[2], os.Args[3], os.Args[4], os.Args[5])
	default:
		fmt.Fprintln(os.Stderr, "usage: plain BOOTSTRAP TOPIC GROUP | secure BOOTSTRAP CAFILE TOPIC GROUP")
		os.Exit(2)
	}
}

// logger sends Sarama's own log to stderr, which the Java test shows when a step fails.
type logger struct{}

func (logger) Print(v ...interface{})                 { fmt.Fprint(os.Stderr, v...) }
func (logger) Printf(format string, v ...interface{}) { fmt.Fprintf(os.Stderr, format, v...) }
func (logger) Println(v ...interface{})               { fmt.Fprintln(os.Stderr, v...) }
