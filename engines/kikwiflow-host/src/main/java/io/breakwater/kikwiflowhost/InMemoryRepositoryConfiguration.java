package io.breakwater.kikwiflowhost;

import io.kikwiflow.model.event.OutboxEventEntity;
import io.kikwiflow.persistence.InMemoryKikwiEngineRepository;
import io.kikwiflow.persistence.api.repository.KikwiEngineRepository;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Declares the engine's own in-memory repository as an application bean, built exactly as
 * kikwi-in-memory-spring-boot-autoconfigure's KikwiflowInMemoryRepositoryConfiguration builds it
 * (atoxfy/kikwiflow@3b62f35).
 * <p>
 * Why not leave it to that starter: the management REST's query controllers (search, instance,
 * snapshot, incidents, pulse) are guarded by {@code @ConditionalOnBean(QueryRepository.class)}, and
 * KikwiRestAutoConfiguration is ordered only after KikwiflowAutoConfiguration, not after the in-memory
 * configuration. With the starter alone, the REST conditions are evaluated before the repository bean
 * exists, so every query endpoint answers 405/404 from Spring. A bean from the application itself is
 * registered before any auto-configuration runs; the starter's {@code @ConditionalOnMissingBean}
 * then backs off.
 */
@Configuration(proxyBeanMethods = false)
public class InMemoryRepositoryConfiguration {

    @Bean
    public KikwiEngineRepository kikwiEngineRepository() {
        return new InMemoryKikwiEngineRepository(new ConcurrentLinkedQueue<OutboxEventEntity>());
    }
}
