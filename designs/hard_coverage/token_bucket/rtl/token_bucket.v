// token_bucket: token-bucket rate limiter with a 20-token bucket.
// The bucket starts empty and earns one token every 8 cycles (a 3-bit
// prescaler). A request asks for cost + 1 tokens (1..4): it is granted when the
// bucket holds at least that many (they are taken at once), otherwise it is
// denied and nothing is taken; taken reports the tokens of the last grant (0 if
// none). The refill of the same cycle is added after the grant; a refill that
// finds the bucket full (20 tokens after the grant) is lost and flagged by
// overflow. idle_cnt counts the consecutive cycles without a grant (the
// limiter unused), saturating at 63 (idle_long). Synchronous active-high reset.
module token_bucket (
    input  wire       clk,
    input  wire       rst,
    input  wire       req,
    input  wire [1:0] cost,
    output reg        grant,
    output reg        deny,
    output reg        overflow,
    output reg  [2:0] taken,
    output reg  [4:0] tokens,
    output reg  [5:0] idle_cnt,
    output wire       full,
    output wire       empty,
    output wire       idle_long
);
    localparam [4:0] CAP      = 5'd20;
    localparam [2:0] RATE_MAX = 3'd7;    // a refill every RATE_MAX + 1 cycles
    localparam [5:0] IDLE_MAX = 6'd63;

    reg  [2:0] pre;

    wire       tick  = (pre == RATE_MAX);
    wire [4:0] need  = {3'b000, cost} + 5'd1;
    wire       ok    = req && (tokens >= need);
    wire [4:0] after = ok ? tokens - need : tokens;

    always @(posedge clk) begin
        if (rst) begin
            pre      <= 3'd0;
            tokens   <= 5'd0;
            grant    <= 1'b0;
            deny     <= 1'b0;
            overflow <= 1'b0;
            taken    <= 3'd0;
            idle_cnt <= 6'd0;
        end else begin
            pre   <= pre + 3'd1;
            grant <= ok;
            deny  <= req && !ok;
            taken <= ok ? need[2:0] : 3'd0;
            if (tick && after == CAP) begin
                tokens   <= after;           // bucket full: the new token is lost
                overflow <= 1'b1;
            end else begin
                tokens   <= tick ? after + 5'd1 : after;
                overflow <= 1'b0;
            end
            if (ok)
                idle_cnt <= 6'd0;
            else if (idle_cnt != IDLE_MAX)
                idle_cnt <= idle_cnt + 6'd1;
        end
    end

    assign full      = (tokens == CAP);
    assign empty     = (tokens == 5'd0);
    assign idle_long = (idle_cnt == IDLE_MAX);
endmodule
