// lru_cache_ctl: controller and tag store of a 4-set, 4-way set-associative write-back
// cache with tree pseudo-LRU replacement. A request (line address: set = addr[1:0], tag =
// addr[15:2]) is answered the next cycle: a hit updates the set's LRU tree (and the
// dirty bit for a write); a miss starts a refill into the first invalid way, else into
// the way the tree points at, writing a dirty victim back first. One miss at a time:
// while it is outstanding, hits to other sets are served (hit under miss), a miss is
// refused, and so is any access to the set being filled. A flush walks all 16 lines,
// writing back the dirty ones, and invalidates the cache. Memory operations hold mem_req
// until mem_ack. Synchronous active-high reset.
module lru_cache_ctl (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,       // 0 read, 1 write, 2 flush, 3 reserved
    input  wire [15:0] req_addr,
    input  wire        mem_ack,
    output reg         resp_valid,
    output reg  [2:0]  resp_kind,    // 0 read hit, 1 write hit, 2 read miss, 3 write miss, 4 refused, 5 flush, 6 error
    output reg  [1:0]  resp_way,
    output reg  [1:0]  refuse_why,   // 1 miss under miss, 2 set busy, 3 busy for a flush
    output reg  [2:0]  lru_q,        // the LRU tree of the set a response touched
    output reg         mem_req,
    output reg         mem_we,
    output reg  [15:0] mem_addr,
    output reg         fill_done,
    output reg  [1:0]  fill_way,
    output reg         evict,
    output reg         evict_dirty,
    output reg  [1:0]  evict_way,
    output reg         flush_done,
    output reg  [4:0]  flush_wb,
    output reg  [1:0]  state
);
    localparam [1:0] IDLE = 2'd0, WB = 2'd1, FILL = 2'd2, FLUSH = 2'd3;

    reg [15:0]  valid, dirty;
    reg [223:0] tags;          // line {set, way} at tags[14 * line +: 14]
    reg [11:0]  plru;          // set s at plru[3 * s +: 3]
    reg [1:0]   m_set, m_way;
    reg [13:0]  m_tag;
    reg         m_wr;
    reg [3:0]   fidx;

    // the tree {b2, b1, b0} after an access to way w points away from w: b0 picks the half
    // (1: ways 2-3), b1 the way in 0-1, b2 the way in 2-3; only the other half's bit is kept
    function [2:0] touch;
        input [2:1] b;
        input [1:0] w;
        touch = w[1] ? {~w[0], b[1], 1'b0} : {b[2], ~w[0], 1'b1};
    endfunction

    wire [1:0]  set  = req_addr[1:0];
    wire [13:0] tag  = req_addr[15:2];
    wire [3:0]  vset = valid[4 * set +: 4];
    wire [3:0]  hitv = {vset[3] && tags[14 * {set, 2'd3} +: 14] == tag, vset[2] && tags[14 * {set, 2'd2} +: 14] == tag,
                        vset[1] && tags[14 * {set, 2'd1} +: 14] == tag, vset[0] && tags[14 * {set, 2'd0} +: 14] == tag};
    wire        hit  = hitv != 4'd0;
    wire [1:0]  hway = {hitv[3] | hitv[2], hitv[3] | hitv[1]};
    wire [2:0]  tree = plru[3 * set +: 3];
    wire [1:0]  vict = (vset != 4'hF) ? (!vset[0] ? 2'd0 : !vset[1] ? 2'd1 : !vset[2] ? 2'd2 : 2'd3)
                                      : (tree[0] ? {1'b1, tree[2]} : {1'b0, tree[1]});
    wire [3:0]  vline = {set, vict};
    wire        busy_set = state != IDLE && set == m_set;

    always @(posedge clk) begin
        if (rst) begin
            valid <= 16'd0; dirty <= 16'd0; tags <= 224'd0; plru <= 12'd0; state <= IDLE;
            m_set <= 2'd0; m_way <= 2'd0; m_tag <= 14'd0; m_wr <= 1'b0; fidx <= 4'd0;
            resp_valid <= 1'b0; resp_kind <= 3'd0; resp_way <= 2'd0; refuse_why <= 2'd0; lru_q <= 3'd0;
            mem_req <= 1'b0; mem_we <= 1'b0; mem_addr <= 16'd0; fill_done <= 1'b0; fill_way <= 2'd0;
            evict <= 1'b0; evict_dirty <= 1'b0; evict_way <= 2'd0; flush_done <= 1'b0; flush_wb <= 5'd0;
        end else begin
            resp_valid <= req_valid;
            fill_done  <= 1'b0;
            evict      <= 1'b0;
            flush_done <= 1'b0;
            // memory side
            if (state == WB && mem_ack) begin
                valid[{m_set, m_way}] <= 1'b0;
                dirty[{m_set, m_way}] <= 1'b0;
                mem_we   <= 1'b0;
                mem_addr <= {m_tag, m_set};
                state    <= FILL;
            end else if (state == FILL && mem_ack) begin
                valid[{m_set, m_way}] <= 1'b1;
                dirty[{m_set, m_way}] <= m_wr;
                tags[14 * {m_set, m_way} +: 14] <= m_tag;
                plru[3 * m_set +: 3] <= touch(plru[3 * m_set + 1 +: 2], m_way);
                mem_req   <= 1'b0;
                fill_done <= 1'b1;
                fill_way  <= m_way;
                state     <= IDLE;
            end else if (state == FLUSH && (!mem_req || mem_ack)) begin
                if (!mem_req && valid[fidx] && dirty[fidx]) begin
                    mem_req  <= 1'b1;
                    mem_we   <= 1'b1;
                    mem_addr <= {tags[14 * fidx +: 14], fidx[3:2]};
                end else begin
                    valid[fidx] <= 1'b0;
                    dirty[fidx] <= 1'b0;
                    mem_req     <= 1'b0;
                    mem_we      <= 1'b0;
                    fidx        <= fidx + 4'd1;
                    if (mem_req)
                        flush_wb <= flush_wb + 5'd1;
                    if (fidx == 4'd15) begin
                        plru       <= 12'd0;
                        flush_done <= 1'b1;
                        state      <= IDLE;
                    end
                end
            end
            // requests
            if (req_valid) begin
                resp_way <= hway;
                if (req_op == 2'd3)
                    resp_kind <= 3'd6;
                else if (state == FLUSH || (req_op == 2'd2 && state != IDLE)) begin
                    resp_kind  <= 3'd4;
                    refuse_why <= 2'd3;
                end else if (req_op == 2'd2) begin
                    resp_kind <= 3'd5;
                    state     <= FLUSH;
                    fidx      <= 4'd0;
                    flush_wb  <= 5'd0;
                end else if (busy_set) begin
                    resp_kind  <= 3'd4;
                    refuse_why <= 2'd2;
                end else if (hit) begin
                    resp_kind <= {2'b00, req_op[0]};
                    lru_q     <= touch(tree[2:1], hway);
                    plru[3 * set +: 3] <= touch(tree[2:1], hway);
                    if (req_op[0])
                        dirty[{set, hway}] <= 1'b1;
                end else if (state != IDLE) begin
                    resp_kind  <= 3'd4;
                    refuse_why <= 2'd1;
                end else begin
                    resp_kind <= {2'b01, req_op[0]};
                    resp_way  <= vict;
                    m_set <= set; m_way <= vict; m_tag <= tag; m_wr <= req_op[0];
                    mem_req   <= 1'b1;
                    evict     <= vset == 4'hF;
                    evict_dirty <= vset == 4'hF && dirty[vline];
                    evict_way <= vict;
                    if (vset == 4'hF && dirty[vline]) begin
                        state    <= WB;
                        mem_we   <= 1'b1;
                        mem_addr <= {tags[14 * vline +: 14], set};
                    end else begin
                        state    <= FILL;
                        mem_we   <= 1'b0;
                        mem_addr <= req_addr;
                        valid[vline] <= 1'b0;
                    end
                end
            end
        end
    end
endmodule
