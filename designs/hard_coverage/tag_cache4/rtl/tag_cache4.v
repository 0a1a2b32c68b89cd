// tag_cache4: tag store of a 4-way fully associative cache with true LRU.
// Each entry holds a valid bit, a 12-bit tag and a 2-bit age (0: most, 3: least
// recently used); the ages are always a permutation of 0..3. op 1 looks tag up
// (hit or miss); op 2 fills tag: a tag already present is only refreshed (dup),
// else it goes to the lowest invalid entry, or when all four are valid it
// replaces the LRU entry (evict). A hit or a fill makes its entry the MRU one
// (age 0) and ages every entry that was younger by one. op 3 flushes: all
// entries invalid, ages back to 0, 1, 2, 3. Results are registered one-cycle
// pulses; idx names the entry of the last hit, fill or refresh, hit_age the age
// the hit entry had. Asynchronous active-low reset (as a flush).
module tag_cache4 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire [1:0]  op,
    input  wire [11:0] tag,
    output reg         hit,
    output reg         miss,
    output reg         filled,
    output reg         evict,
    output reg         dup,
    output reg  [1:0]  idx,
    output reg  [1:0]  hit_age,
    output reg  [3:0]  valid,
    output wire        full
);
    localparam [1:0] OP_LOOKUP = 2'd1, OP_FILL = 2'd2, OP_FLUSH = 2'd3;

    reg  [11:0] tag0, tag1, tag2, tag3;
    reg  [1:0]  age0, age1, age2, age3;

    wire [3:0] match = {valid[3] && tag3 == tag, valid[2] && tag2 == tag,
                        valid[1] && tag1 == tag, valid[0] && tag0 == tag};
    wire       any   = |match;
    wire [1:0] m_idx = match[0] ? 2'd0 : match[1] ? 2'd1 : match[2] ? 2'd2 : 2'd3;
    wire [1:0] free  = !valid[0] ? 2'd0 : !valid[1] ? 2'd1 : !valid[2] ? 2'd2 : 2'd3;
    wire [1:0] lru   = (age0 == 2'd3) ? 2'd0 : (age1 == 2'd3) ? 2'd1 : (age2 == 2'd3) ? 2'd2 : 2'd3;
    // the entry an operation uses: the matching one, else a free one, else the LRU one
    wire [1:0] tgt   = any ? m_idx : (full ? lru : free);
    wire [1:0] t_age = (tgt == 2'd0) ? age0 : (tgt == 2'd1) ? age1 : (tgt == 2'd2) ? age2 : age3;
    wire       touch = (op == OP_FILL) || (op == OP_LOOKUP && any);
    wire       alloc = (op == OP_FILL) && !any;

    assign full = &valid;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            valid <= 4'd0;
            tag0 <= 12'd0; tag1 <= 12'd0; tag2 <= 12'd0; tag3 <= 12'd0;
            age0 <= 2'd0;  age1 <= 2'd1;  age2 <= 2'd2;  age3 <= 2'd3;
            hit <= 1'b0; miss <= 1'b0; filled <= 1'b0; evict <= 1'b0; dup <= 1'b0;
            idx <= 2'd0; hit_age <= 2'd0;
        end else begin
            hit    <= (op == OP_LOOKUP) && any;
            miss   <= (op == OP_LOOKUP) && !any;
            filled <= alloc;
            evict  <= alloc && full;
            dup    <= (op == OP_FILL) && any;
            if (touch)
                idx <= tgt;
            if (op == OP_LOOKUP && any)
                hit_age <= t_age;
            if (op == OP_FLUSH) begin
                valid <= 4'd0;
                age0 <= 2'd0; age1 <= 2'd1; age2 <= 2'd2; age3 <= 2'd3;
            end else if (touch) begin
                age0 <= (tgt == 2'd0) ? 2'd0 : (age0 < t_age) ? age0 + 2'd1 : age0;
                age1 <= (tgt == 2'd1) ? 2'd0 : (age1 < t_age) ? age1 + 2'd1 : age1;
                age2 <= (tgt == 2'd2) ? 2'd0 : (age2 < t_age) ? age2 + 2'd1 : age2;
                age3 <= (tgt == 2'd3) ? 2'd0 : (age3 < t_age) ? age3 + 2'd1 : age3;
                if (alloc) begin
                    valid[tgt] <= 1'b1;
                    case (tgt)
                        2'd0: tag0 <= tag;
                        2'd1: tag1 <= tag;
                        2'd2: tag2 <= tag;
                        default: tag3 <= tag;
                    endcase
                end
            end
        end
    end
endmodule
